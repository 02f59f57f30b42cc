import type { Duplex } from "node:stream";
import type { SandboxDriver } from "@berth/sandbox";
import {
  PORT_FRAME_MAX_BYTES,
  PortCloseResultSchema,
  PortMethod,
  PortOpenResultSchema,
  PortReadResultSchema,
  PortWriteResultSchema,
} from "@berth/protocol";

const READ_WAIT_MS = 10_000;
/** The agent answers a read within READ_WAIT_MS; this covers a busy channel on top. */
const READ_TIMEOUT_MS = READ_WAIT_MS + 20_000;

/**
 * One TCP stream to 127.0.0.1:<port> inside a session's container, relayed by the agent (port.* methods).
 * Reads are pulled one frame at a time and the next is asked for only once the client socket took the
 * last, so a slow client slows the server inside instead of filling memory here.
 */
export class PortTunnel {
  private closed = false;

  private constructor(
    private readonly driver: SandboxDriver,
    readonly sessionId: string,
    readonly port: number,
    readonly streamId: string,
  ) {}

  /** Rejects with the agent's reason (nothing listens) when the connection inside fails. */
  static async open(driver: SandboxDriver, sessionId: string, port: number): Promise<PortTunnel> {
    const { streamId } = await driver.request(sessionId, PortMethod.Open, { port }, PortOpenResultSchema);
    return new PortTunnel(driver, sessionId, port, streamId);
  }

  /** Sends bytes to the server inside, in frames the agent accepts, one after another. */
  async write(bytes: Buffer): Promise<void> {
    for (let at = 0; at < bytes.length && !this.closed; at += PORT_FRAME_MAX_BYTES) {
      const data = bytes.subarray(at, at + PORT_FRAME_MAX_BYTES).toString("base64");
      await this.driver.request(
        this.sessionId,
        PortMethod.Write,
        { streamId: this.streamId, data },
        PortWriteResultSchema,
      );
    }
  }

  /** Next bytes from the server; null once it closed and everything was read. */
  async read(): Promise<Buffer | null> {
    for (;;) {
      if (this.closed) return null;
      const { data, eof } = await this.driver.request(
        this.sessionId,
        PortMethod.Read,
        { streamId: this.streamId, waitMs: READ_WAIT_MS },
        PortReadResultSchema,
        {
          timeoutMs: READ_TIMEOUT_MS,
        },
      );
      if (data.length > 0) return Buffer.from(data, "base64");
      if (eof) return null;
    }
  }

  /** Relays a raw client socket's bytes to the server (a WebSocket after its upgrade), in order. */
  pumpFrom(socket: Duplex): void {
    let queue = Promise.resolve();
    socket.on("data", (chunk: Buffer) => {
      socket.pause();
      queue = queue
        .then(() => this.write(chunk))
        .then(
          () => void socket.resume(),
          () => void (socket.destroy(), this.close()),
        );
    });
    socket.on("close", () => void this.close());
  }

  /** Copies what the server sends to `socket` until either side ends, waiting for the socket to drain. */
  async pumpTo(socket: Duplex, first?: Buffer): Promise<void> {
    try {
      if (first?.length && !socket.write(first)) await drained(socket);
      for (;;) {
        const chunk = await this.read();
        if (!chunk || socket.destroyed) break;
        if (!socket.write(chunk)) await drained(socket);
      }
    } finally {
      socket.end();
      await this.close();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.driver
      .request(this.sessionId, PortMethod.Close, { streamId: this.streamId }, PortCloseResultSchema)
      .catch(() => undefined);
  }
}

function drained(socket: Duplex): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off("drain", done);
      socket.off("close", done);
      resolve();
    };
    socket.on("drain", done);
    socket.on("close", done);
  });
}
