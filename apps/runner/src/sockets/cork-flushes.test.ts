import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Server, type Socket } from "socket.io";
import { io as connect, type Socket as ClientSocket } from "socket.io-client";
import { corkFlushes } from "./cork-flushes";

type Tcp = { _writev?: (...args: unknown[]) => void; _write: (...args: unknown[]) => void };

let close: (() => Promise<void>) | null = null;
afterEach(async () => {
  await close?.();
  close = null;
});

/** A real socket.io server and client over a WebSocket; the server's side of the one connection, corked or not. */
async function connection(cork: boolean): Promise<{ server: Socket; client: ClientSocket; writes: () => number }> {
  const httpServer = http.createServer();
  const io = new Server(httpServer, { transports: ["websocket"] });
  const connected = new Promise<Socket>((resolve) => io.once("connection", resolve));
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const client = connect(`http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`, { transports: ["websocket"], forceNew: true });
  const server = await connected;
  if (cork) corkFlushes(server);
  // Every write that reaches the TCP socket's stream implementation is a syscall (or one queued request).
  const tcp = (server.conn as unknown as { transport: { socket: { _socket: Tcp } } }).transport.socket._socket;
  let writes = 0;
  for (const method of ["_write", "_writev"] as const) {
    const original = tcp[method]!.bind(tcp);
    tcp[method] = (...args: unknown[]) => {
      writes++;
      original(...args);
    };
  }
  close = async () => {
    client.disconnect();
    await new Promise<void>((resolve) => void io.close(() => resolve()));
  };
  return { server, client, writes: () => writes };
}

/** 20 binary events at once: the first is sent while the rest queue in engine.io, then go out in one flush. */
async function burst(cork: boolean): Promise<{ writes: number; received: number[] }> {
  const { server, client, writes } = await connection(cork);
  const received: number[] = [];
  const all = new Promise<void>((resolve) =>
    client.on("run:output", (event: { offset: number; data: Buffer }) => {
      expect(Buffer.from(event.data).equals(Buffer.alloc(1024, event.offset % 251))).toBe(true);
      received.push(event.offset);
      if (received.length === 20) resolve();
    }),
  );
  const before = writes();
  for (let i = 0; i < 20; i++) server.emit("run:output", { offset: i, data: Buffer.alloc(1024, i % 251) });
  await all;
  return { writes: writes() - before, received };
}

describe("corkFlushes", () => {
  it("writes a flush of queued frames to the TCP socket at once, every event intact and in order", async () => {
    const corked = await burst(true);
    await close?.();
    close = null;
    const plain = await burst(false);
    const order = Array.from({ length: 20 }, (_, i) => i);
    expect(corked.received).toEqual(order);
    expect(plain.received).toEqual(order);
    // Each event is two frames: uncorked, every frame of the queued 19 events is a write of its own; corked,
    // the first event and then the whole flush (a write or two, however the kernel takes it).
    expect(plain.writes).toBeGreaterThanOrEqual(38);
    expect(corked.writes).toBeLessThanOrEqual(3);
  });
});
