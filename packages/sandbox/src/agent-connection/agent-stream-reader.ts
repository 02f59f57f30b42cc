import { OUTPUT_FRAME_MARKER, OUTPUT_FRAME_PREFIX_BYTES, decodeOutputFramePrefix } from "@berth/protocol";

export interface AgentStreamHandlers {
  /** One JSON-RPC line, without its "\n" (never empty). */
  line(bytes: Buffer): void;
  /** One output frame's header JSON and data, lengths already checked against their bounds. */
  frame(header: Buffer, data: Buffer): void;
  /** The stream cannot be trusted any more (a line or frame over its bound); nothing more is delivered. */
  fatal(message: string): void;
}

/**
 * Splits the agent's stdout into JSON-RPC lines and binary output frames (agent-output-frame.ts in
 * @berth/protocol): at a message boundary, 0x00 starts a frame and anything else a line. Bytes are gathered
 * as parts and joined once per message, so a long line or a frame split over many reads costs one copy.
 */
export class AgentStreamReader {
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** What the message being gathered is: a line, or a frame of this many bytes in all (null: prefix not read yet). */
  private message: { kind: "line" } | { kind: "frame"; total: number | null } | null = null;
  private stopped = false;

  constructor(
    private readonly handlers: AgentStreamHandlers,
    private readonly maxLineBytes: number,
  ) {}

  push(chunk: Buffer): void {
    let buf = chunk;
    while (buf.length > 0 && !this.stopped) {
      this.message ??= buf[0] === OUTPUT_FRAME_MARKER ? { kind: "frame", total: null } : { kind: "line" };
      buf = this.message.kind === "line" ? this.pushLine(buf) : this.pushFrame(buf, this.message);
    }
  }

  /** Stops delivering (the connection failed); what was gathered is dropped. */
  stop(): void {
    this.stopped = true;
    this.parts = [];
    this.partBytes = 0;
  }

  // Splits on "\n" byte-wise: 0x0a never occurs inside a UTF-8 multi-byte sequence.
  private pushLine(buf: Buffer): Buffer {
    const nl = buf.indexOf(0x0a);
    if (nl === -1) {
      this.gather(buf);
      if (this.partBytes > this.maxLineBytes) this.fail(`sent a line over ${this.maxLineBytes} bytes`);
      return Buffer.alloc(0);
    }
    const line = this.take(buf.subarray(0, nl));
    if (line.length > 0) this.handlers.line(line);
    return buf.subarray(nl + 1);
  }

  private pushFrame(buf: Buffer, frame: { kind: "frame"; total: number | null }): Buffer {
    if (frame.total === null) {
      const want = OUTPUT_FRAME_PREFIX_BYTES - this.partBytes;
      this.gather(buf.subarray(0, want));
      if (this.partBytes < OUTPUT_FRAME_PREFIX_BYTES) return Buffer.alloc(0);
      const prefix = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
      this.parts = [prefix];
      const lengths = decodeOutputFramePrefix(prefix);
      if ("error" in lengths) {
        this.fail(`sent a malformed output frame: ${lengths.error}`);
        return Buffer.alloc(0);
      }
      frame.total = OUTPUT_FRAME_PREFIX_BYTES + lengths.headerBytes + lengths.dataBytes;
      return this.pushFrame(buf.subarray(want), frame);
    }
    const want = frame.total - this.partBytes;
    if (buf.length < want) {
      this.gather(buf);
      return Buffer.alloc(0);
    }
    const whole = this.take(buf.subarray(0, want));
    const headerBytes = whole.readUInt32BE(1);
    const dataStart = OUTPUT_FRAME_PREFIX_BYTES + headerBytes;
    this.handlers.frame(whole.subarray(OUTPUT_FRAME_PREFIX_BYTES, dataStart), whole.subarray(dataStart));
    return buf.subarray(want);
  }

  private gather(buf: Buffer): void {
    if (buf.length === 0) return;
    this.parts.push(buf);
    this.partBytes += buf.length;
  }

  /** The message gathered so far plus `last`, as one buffer; the next message starts afresh. */
  private take(last: Buffer): Buffer {
    const whole = this.parts.length === 0 ? last : Buffer.concat([...this.parts, last]);
    this.parts = [];
    this.partBytes = 0;
    this.message = null;
    return whole;
  }

  private fail(message: string): void {
    this.stop();
    this.handlers.fatal(message);
  }
}
