import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Server } from "socket.io";
import { io as connect, type Socket as ClientSocket } from "socket.io-client";
import type { OutputEncoding } from "@berth/protocol";
import { RunLogs } from "../runs/run-logs";
import { LOG_BLOCK } from "./log-blocks";
import { LogFanOut } from "./log-fan-out";

const RUN = "run_fanout";
const CHUNK = 64 * 1024;

type Client = { socket: ClientSocket; received: Buffer[]; next: number; errors: string[]; kinds: Set<string> };

/** A real socket.io server whose every connection follows one run's stdout through one LogFanOut, in the encoding its handshake asks for. */
async function setUp() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-fan-out-"));
  const logs = new RunLogs(RunLogs.dirFor(dataDir, RUN));
  const server = http.createServer();
  const io = new Server(server, { transports: ["websocket"] });
  let encodedOutputs = 0;
  const encode = io.encoder.encode.bind(io.encoder);
  io.encoder.encode = (packet) => {
    if (Array.isArray(packet.data) && packet.data[0] === "run:output") encodedOutputs++;
    return encode(packet);
  };
  const fanOut = new LogFanOut(io, `run:${RUN}:stdout`, { dataDir, runId: RUN, stream: "stdout" }, (to, offset, data) =>
    to.emit("run:output", { runId: RUN, stream: "stdout", offset, data }),
  );
  io.on("connection", (socket) => {
    const auth = socket.handshake.auth as { offset?: number; encoding?: OutputEncoding };
    const { follower } = fanOut.follow(socket, Number(auth.offset ?? 0), auth.encoding ?? "text");
    socket.on("disconnect", () => fanOut.unfollow(follower));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients: Client[] = [];
  const join = async (offset = 0, encoding: OutputEncoding = "text"): Promise<Client> => {
    const socket = connect(url, { transports: ["websocket"], forceNew: true, auth: { offset, encoding } });
    const client: Client = { socket, received: [], next: offset, errors: [], kinds: new Set() };
    socket.on("run:output", (event: { offset: number; data: string | Buffer }) => {
      if (event.offset !== client.next) client.errors.push(`offset ${event.offset}, expected ${client.next}`);
      client.kinds.add(typeof event.data === "string" ? "text" : "bytes");
      const bytes = Buffer.from(event.data);
      client.received.push(bytes);
      client.next = event.offset + bytes.length;
    });
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    clients.push(client);
    return client;
  };
  /** Appends a chunk to the log and pushes it once it is on disk, as the run service does. */
  const print = (data: Buffer) => {
    logs.append("stdout", data, ({ offset }) => fanOut.push(offset, data.toString("utf8"), data.length));
  };
  const close = async () => {
    for (const client of clients) client.socket.disconnect();
    await logs.close();
    await new Promise<void>((resolve) => void io.close(() => resolve()));
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { join, print, close, logs, fanOut, dataDir, encoded: () => encodedOutputs };
}

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};
const sha = (buffers: Buffer[]) => crypto.createHash("sha256").update(Buffer.concat(buffers)).digest("hex");
const chunk = (i: number) => Buffer.alloc(CHUNK, String.fromCharCode(97 + (i % 26)));

let current: Awaited<ReturnType<typeof setUp>> | null = null;
afterEach(async () => {
  await current?.close();
  current = null;
});

const kind = (encoding: OutputEncoding) => (encoding === "binary" ? "bytes" : "text");

describe.each(["text", "binary"] as const)("LogFanOut, %s output", (encoding) => {
  it("encodes each live chunk once for every caught-up client, and each gets every byte at its offset", async () => {
    const t = (current = await setUp());
    const clients = await Promise.all(Array.from({ length: 10 }, () => t.join(0, encoding)));
    const before = t.encoded();
    // Output at the pace a reader keeps up with (a burst faster than the network is the next test's case).
    for (let i = 0; i < 20; i++) {
      t.print(chunk(i));
      await until(() => clients.every((c) => c.next === (i + 1) * CHUNK), `every client to get chunk ${i}`);
    }
    expect(t.encoded() - before).toBe(20);
    const stored = sha([fs.readFileSync(RunLogs.pathFor(t.dataDir, RUN, "stdout"))]);
    for (const client of clients) {
      expect(client.errors).toEqual([]);
      expect(sha(client.received)).toBe(stored);
      expect([...client.kinds]).toEqual([kind(encoding)]);
    }
  });

  it("sends live chunks pushed in one turn as one event, encoded once, every byte at its offset", async () => {
    const t = (current = await setUp());
    const clients = await Promise.all(Array.from({ length: 5 }, () => t.join(0, encoding)));
    // On disk first (as the run service writes them), then announced together, as a busy runner reads a batch.
    const chunks = Array.from({ length: 4 }, (_, i) => chunk(i));
    const written: { offset: number; bytes: number }[] = [];
    for (const data of chunks) t.logs.append("stdout", data, ({ offset }) => written.push({ offset, bytes: data.length }));
    await until(() => written.length === chunks.length, "the chunks to be on disk");
    const before = t.encoded();
    for (const [i, { offset, bytes }] of written.entries()) t.fanOut.push(offset, chunks[i]!.toString("utf8"), bytes);
    await until(() => clients.every((c) => c.next === 4 * CHUNK), "every client to get the batch");
    expect(t.encoded() - before).toBe(1);
    for (const client of clients) {
      expect(client.errors).toEqual([]);
      expect(client.received.length).toBe(1);
      expect(Buffer.concat(client.received).equals(Buffer.concat(chunks))).toBe(true);
    }
  });

  it("replays a client from an old offset, then it follows live without a gap or a duplicate", async () => {
    const t = (current = await setUp());
    for (let i = 0; i < 40; i++) t.print(chunk(i));
    const late = await t.join(3 * CHUNK + 5, encoding);
    for (let i = 40; i < 45; i++) t.print(chunk(i));
    await until(() => late.next === 45 * CHUNK, "the late client to reach the end");
    expect(late.errors).toEqual([]);
    const stored = fs.readFileSync(RunLogs.pathFor(t.dataDir, RUN, "stdout"));
    expect(Buffer.concat(late.received).equals(stored.subarray(3 * CHUNK + 5))).toBe(true);
  });

  it("replays across blocks with a character split between two of them: whole characters in every event", async () => {
    const t = (current = await setUp());
    // "✓" is 3 bytes: its first at the end of the first block, the other two at the start of the second.
    const printed = [Buffer.alloc(LOG_BLOCK - 1, "a"), Buffer.from("✓b\n"), Buffer.alloc(LOG_BLOCK, "c")];
    for (const data of printed) t.print(data);
    const total = Buffer.concat(printed);
    const late = await t.join(0, encoding);
    await until(() => late.next === total.length, "the late client to reach the end");
    expect(late.errors).toEqual([]);
    expect(Buffer.concat(late.received).equals(total)).toBe(true);
    expect(late.received.every((bytes) => !bytes.toString("utf8").includes("\uFFFD"))).toBe(true);
    expect([...late.kinds]).toEqual([kind(encoding)]);
  });

  it("a client that stops reading falls behind without holding up the others, then catches up from disk", async () => {
    const t = (current = await setUp());
    const fast = await t.join(0, encoding);
    const slow = await t.join(0, encoding);
    // Stop reading the slow client's TCP socket: the runner's queue for it grows until it leaves the room.
    const tcp = (slow.socket.io.engine.transport as unknown as { ws: { _socket: { pause(): void; resume(): void } } }).ws._socket;
    tcp.pause();
    const total = 400;
    for (let i = 0; i < total; i++) {
      t.print(chunk(i));
      if (i % 20 === 0) await new Promise((r) => setImmediate(r));
    }
    await until(() => fast.next === total * CHUNK, "the fast client to get everything");
    expect(slow.next).toBeLessThan(total * CHUNK);
    tcp.resume();
    await until(() => slow.next === total * CHUNK, "the slow client to catch up");
    const stored = sha([fs.readFileSync(RunLogs.pathFor(t.dataDir, RUN, "stdout"))]);
    for (const client of [fast, slow]) {
      expect(client.errors).toEqual([]);
      expect(sha(client.received)).toBe(stored);
    }
    // Caught up, it is back in the live room: the next chunk reaches both.
    t.print(chunk(total));
    await until(() => fast.next === (total + 1) * CHUNK && slow.next === (total + 1) * CHUNK, "the next live chunk");
  });
});

describe("LogFanOut, followers catching up in a log longer than the kept blocks", () => {
  it("binary followers spread over the log each get every byte exactly while the blocks' memory is reused under them", async () => {
    const t = (current = await setUp());
    // 40 blocks, each of its own letters, so a view whose memory was reused too early would show another block's.
    const blocks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(LOG_BLOCK, String.fromCharCode(65 + (i % 58))));
    for (const data of blocks) t.print(data);
    const total = Buffer.concat(blocks);
    await t.logs.flushed();
    // Joined at offsets far apart, some of them paused for a while: views of many blocks queued at once.
    const clients = await Promise.all(Array.from({ length: 8 }, (_, i) => t.join(i * 5 * LOG_BLOCK + i, "binary")));
    const paused = clients.filter((_, i) => i % 2 === 0).map((c) => (c.socket.io.engine.transport as unknown as { ws: { _socket: { pause(): void; resume(): void } } }).ws._socket);
    for (const tcp of paused) tcp.pause();
    await new Promise((r) => setTimeout(r, 100));
    for (const tcp of paused) tcp.resume();
    await until(() => clients.every((c) => c.next === total.length), "every client to reach the end");
    for (const [i, client] of clients.entries()) {
      expect(client.errors).toEqual([]);
      expect(Buffer.concat(client.received).equals(total.subarray(i * 5 * LOG_BLOCK + i))).toBe(true);
    }
  });
});

describe("LogFanOut, text and binary followers of one log", () => {
  it("each gets every chunk in its own encoding, one encode per chunk and encoding", async () => {
    const t = (current = await setUp());
    const texts = await Promise.all(Array.from({ length: 3 }, () => t.join(0, "text")));
    const binaries = await Promise.all(Array.from({ length: 3 }, () => t.join(0, "binary")));
    const before = t.encoded();
    for (let i = 0; i < 10; i++) {
      t.print(chunk(i));
      await until(() => [...texts, ...binaries].every((c) => c.next === (i + 1) * CHUNK), `every client to get chunk ${i}`);
    }
    expect(t.encoded() - before).toBe(20);
    const stored = sha([fs.readFileSync(RunLogs.pathFor(t.dataDir, RUN, "stdout"))]);
    for (const client of [...texts, ...binaries]) {
      expect(client.errors).toEqual([]);
      expect(sha(client.received)).toBe(stored);
    }
    expect(texts.every((c) => c.kinds.has("text") && c.kinds.size === 1)).toBe(true);
    expect(binaries.every((c) => c.kinds.has("bytes") && c.kinds.size === 1)).toBe(true);
  });

  it("a binary follower gets bytes that are not UTF-8 exactly as logged, live and replayed", async () => {
    const t = (current = await setUp());
    const live = await t.join(0, "binary");
    const text = await t.join(0, "text");
    // Valid text around a stray byte and a truncated character (what a program may print).
    const printed = [Buffer.from("before\n"), Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x82, 0x0a]), Buffer.from("after ✓\n")];
    for (const data of printed) t.print(data);
    const total = Buffer.concat(printed);
    await until(() => live.next === total.length && text.next > 0, "both clients to get the output");
    await until(() => text.received.join("").includes("after"), "the text client to get the last line");
    expect(live.errors).toEqual([]);
    expect(Buffer.concat(live.received).equals(total)).toBe(true);
    // Text is whole characters: the bad bytes arrive as U+FFFD, the offsets still those of the log.
    expect(Buffer.concat(text.received).toString()).toContain("\uFFFD");
    const replayed = await t.join(0, "binary");
    await until(() => replayed.next === total.length, "the replayed client to reach the end");
    expect(Buffer.concat(replayed.received).equals(total)).toBe(true);
  });

  it("a live chunk pushed with its bytes as logged goes to every binary follower as those bytes, encoded once, UTF-8 or not", async () => {
    const t = (current = await setUp());
    const binaries = await Promise.all(Array.from({ length: 3 }, () => t.join(0, "binary")));
    const data = Buffer.from([0x61, 0xff, 0x62, 0x0a]);
    const before = t.encoded();
    // Without the bytes, the text's U+FFFD would not encode back to them: each follower would read the file instead.
    t.logs.append("stdout", data, ({ offset }) => t.fanOut.push(offset, data.toString("utf8"), data.length, data));
    await until(() => binaries.every((c) => c.next === data.length), "every binary client to get the chunk");
    expect(t.encoded() - before).toBe(1);
    for (const client of binaries) {
      expect(client.errors).toEqual([]);
      expect(Buffer.concat(client.received).equals(data)).toBe(true);
    }
  });
});
