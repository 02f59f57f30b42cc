import net from "node:net";
import { randomUUID } from "node:crypto";
import {
  formatIssues,
  PORT_FRAME_MAX_BYTES,
  PORT_STREAM_BUFFER_BYTES,
  PORT_STREAM_MAX_OPEN,
  PortCloseParamsSchema,
  PortMethod,
  PortOpenParamsSchema,
  PortReadParamsSchema,
  PortWriteParamsSchema,
  RpcErrorCode,
  type PortMethodName,
} from "@berth/protocol";
import { PortFault } from "./port-fault";
import { listListeningPorts } from "./list-listening-ports";

interface Stream {
  socket: net.Socket;
  chunks: Buffer[];
  buffered: number;
  eof: boolean;
  /** The pending port.read, answered when bytes or the end arrive. */
  wake: (() => void) | null;
}

const CONNECT_TIMEOUT_MS = 5_000;

function parse<T>(
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
  method: string,
  params: unknown,
): T {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  const issues = formatIssues(parsed.error, "params");
  throw new PortFault(RpcErrorCode.InvalidParams, `Invalid ${method} params: ${issues}`);
}

/**
 * TCP streams to servers listening inside the container, relayed over the RPC channel (port.* methods).
 * Each stream holds at most PORT_STREAM_BUFFER_BYTES unread; past that the socket is paused.
 */
export class PortRelay {
  private readonly streams = new Map<string, Stream>();

  get openCount(): number {
    return this.streams.size;
  }

  async dispatch(method: PortMethodName, params: unknown): Promise<unknown> {
    switch (method) {
      case PortMethod.Open:
        return this.open(parse(PortOpenParamsSchema, method, params).port);
      case PortMethod.Write:
        return this.write(parse(PortWriteParamsSchema, method, params));
      case PortMethod.Read:
        return this.read(parse(PortReadParamsSchema, method, params));
      case PortMethod.Close:
        return { closed: this.close(parse(PortCloseParamsSchema, method, params).streamId) };
      case PortMethod.List:
        return listListeningPorts().then((ports) => ({ ports }));
    }
  }

  closeAll(): void {
    for (const id of [...this.streams.keys()]) this.close(id);
  }

  private async open(port: number): Promise<{ streamId: string }> {
    if (this.streams.size >= PORT_STREAM_MAX_OPEN)
      throw new PortFault(
        RpcErrorCode.InvalidParams,
        `port.open: ${PORT_STREAM_MAX_OPEN} streams are open already (the limit)`,
      );
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: "127.0.0.1", port, timeout: CONNECT_TIMEOUT_MS });
      const fail = (why: string) => {
        socket.destroy();
        reject(
          new PortFault(RpcErrorCode.InvalidParams, `nothing answers on 127.0.0.1:${port} in the container (${why})`),
        );
      };
      socket.once("timeout", () => fail(`no connection within ${CONNECT_TIMEOUT_MS} ms`));
      socket.once("error", (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
      socket.once("connect", () => {
        socket.removeAllListeners("timeout").removeAllListeners("error");
        socket.setTimeout(0);
        socket.setNoDelay(true);
        const streamId = randomUUID();
        const stream: Stream = { socket, chunks: [], buffered: 0, eof: false, wake: null };
        this.streams.set(streamId, stream);
        socket.on("data", (chunk: Buffer) => {
          stream.chunks.push(chunk);
          stream.buffered += chunk.length;
          if (stream.buffered >= PORT_STREAM_BUFFER_BYTES) socket.pause();
          stream.wake?.();
        });
        const ended = () => {
          stream.eof = true;
          stream.wake?.();
        };
        socket.on("end", ended);
        socket.on("close", ended);
        socket.on("error", ended);
        resolve({ streamId });
      });
    });
  }

  private async write({ streamId, data }: { streamId: string; data: string }): Promise<{ bytesWritten: number }> {
    const stream = this.require(streamId, "port.write");
    const bytes = Buffer.from(data, "base64");
    if (bytes.length > PORT_FRAME_MAX_BYTES)
      throw new PortFault(
        RpcErrorCode.InvalidParams,
        `port.write: data is ${bytes.length} bytes, over the limit of ${PORT_FRAME_MAX_BYTES}`,
      );
    if (stream.socket.destroyed || !stream.socket.writable)
      throw new PortFault(RpcErrorCode.InvalidParams, `port.write: stream ${streamId} is closed`);
    await new Promise<void>((resolve, reject) =>
      stream.socket.write(bytes, (error) =>
        error ? reject(new PortFault(RpcErrorCode.InvalidParams, `port.write: ${error.message}`)) : resolve(),
      ),
    );
    return { bytesWritten: bytes.length };
  }

  private async read({
    streamId,
    waitMs,
  }: {
    streamId: string;
    waitMs: number;
  }): Promise<{ data: string; eof: boolean }> {
    const stream = this.require(streamId, "port.read");
    if (stream.chunks.length === 0 && !stream.eof && waitMs > 0) {
      // A newer read answers an older one at once (empty): one reader per stream.
      stream.wake?.();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, waitMs);
        function done() {
          clearTimeout(timer);
          if (stream.wake === done) stream.wake = null;
          resolve();
        }
        stream.wake = done;
      });
    }
    const taken: Buffer[] = [];
    let size = 0;
    while (stream.chunks.length > 0 && size < PORT_FRAME_MAX_BYTES) {
      const chunk = stream.chunks[0]!;
      const room = PORT_FRAME_MAX_BYTES - size;
      if (chunk.length <= room) {
        taken.push(stream.chunks.shift()!);
        size += chunk.length;
      } else {
        taken.push(chunk.subarray(0, room));
        stream.chunks[0] = chunk.subarray(room);
        size += room;
      }
    }
    stream.buffered -= size;
    if (stream.buffered < PORT_STREAM_BUFFER_BYTES && stream.socket.isPaused()) stream.socket.resume();
    return { data: Buffer.concat(taken).toString("base64"), eof: stream.eof && stream.chunks.length === 0 };
  }

  private close(streamId: string): boolean {
    const stream = this.streams.get(streamId);
    if (!stream) return false;
    this.streams.delete(streamId);
    stream.socket.destroy();
    stream.eof = true;
    stream.wake?.();
    return true;
  }

  private require(streamId: string, method: string): Stream {
    const stream = this.streams.get(streamId);
    if (!stream) throw new PortFault(RpcErrorCode.InvalidParams, `${method}: unknown streamId ${streamId}`);
    return stream;
  }
}
