import { type ConnectOpts, Socket, type SocketConstructorOpts } from "node:net";

/** Size of each reused read buffer: a pipe's default capacity, so one read takes what one wake-up holds. */
export const LENT_BUFFER_BYTES = 64 * 1024;
/** Reading pauses (the child's writes block) while this many chunks are lent and not yet given back... */
export const MAX_LENT_CHUNKS = 16;
/** ...or this many bytes. */
export const MAX_LENT_BYTES = 1024 * 1024;

/**
 * Called with each chunk read. The chunk is lent: its memory is read into again once `release` has been called, so
 * whoever keeps its bytes past that must copy them. Call `release` exactly once (a second call is ignored).
 */
export type LentChunkHandler = (chunk: Buffer, release: () => void) => void;

/**
 * Reads one pipe (the read end of a FIFO, an fd this process owns) into a few buffers it reuses, not a new Buffer
 * per read: a buffer is handed to `onChunk` and taken back when its `release` is called (run_script releases once
 * the output frame holding it has been written to the agent's stdout). While MAX_LENT_CHUNKS / MAX_LENT_BYTES are
 * out, reading stops, so a consumer that falls behind holds up the writer instead of filling this process's memory.
 * Reads go through libuv's poll of the fd like any pipe's (no thread-pool read blocked on a quiet child).
 */
export class LentOutputReader {
  /** Buffers given back, ready to be read into. */
  private readonly free: Buffer[] = [];
  private lentChunks = 0;
  private lentBytes = 0;
  private paused = false;
  private throttled = true;
  /** How many buffers were ever made (tests: reuse keeps this at most MAX_LENT_CHUNKS + 1). */
  allocated = 0;
  readonly ended: Promise<void>;
  private readonly socket: Socket;

  constructor(fd: number, onChunk: LentChunkHandler) {
    // `onread` is a documented option of the constructor too; @types/node lists it for connect() only.
    const options: SocketConstructorOpts & ConnectOpts = {
      fd,
      readable: true,
      writable: false,
      onread: {
        // Called for the first read and again after every chunk: the buffer the next read fills.
        buffer: () => this.take(),
        callback: (length: number, buffer: Uint8Array) => {
          const chunk = Buffer.from(buffer.buffer, buffer.byteOffset, length);
          this.lentChunks++;
          this.lentBytes += length;
          let released = false;
          onChunk(chunk, () => {
            if (released) return;
            released = true;
            this.give(buffer as Buffer, length);
          });
          if (this.full()) {
            this.paused = true;
            return false; // pauses the socket; give() resumes it
          }
          return true;
        },
      },
    };
    this.socket = new Socket(options);
    this.ended = new Promise((resolve) => {
      this.socket.once("end", resolve);
      this.socket.once("close", resolve);
      // A read error (EIO and the like) ends the stream as EOF would: what was read has been handed on.
      this.socket.on("error", () => resolve());
    });
  }

  /** Reads on without a limit from now on (the child has exited: what is left in the pipe is drained at once). */
  unthrottle(): void {
    this.throttled = false;
    this.resumeIfRoom();
  }

  /** Stops reading and closes the fd; chunks already handed out stay valid until released. */
  destroy(): void {
    this.socket.destroy();
  }

  private full(): boolean {
    return this.throttled && (this.lentChunks >= MAX_LENT_CHUNKS || this.lentBytes >= MAX_LENT_BYTES);
  }

  private take(): Buffer {
    const reused = this.free.pop();
    if (reused) return reused;
    this.allocated++;
    return Buffer.allocUnsafeSlow(LENT_BUFFER_BYTES);
  }

  private give(buffer: Buffer, length: number): void {
    this.lentChunks--;
    this.lentBytes -= length;
    this.free.push(buffer);
    this.resumeIfRoom();
  }

  private resumeIfRoom(): void {
    if (this.paused && !this.full() && !this.socket.destroyed) {
      this.paused = false;
      this.socket.resume();
    }
  }
}
