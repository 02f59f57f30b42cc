import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { ForwardMarker } from "./forward-marker";
import { acceptPeer, parseResponse, PeerLinks, serializeRequest, type PeerLink } from "./peer-channel";
import { encodeFrames, FrameKind, FrameReader, MAX_PAYLOAD } from "./peer-frames";

const SECRET = "s".repeat(40);
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("peer frames", () => {
  it("reads frames back whole however the bytes are cut, a large payload split and joined", () => {
    const big = Buffer.alloc(MAX_PAYLOAD + 10, 7);
    const bytes = Buffer.concat([...encodeFrames(3, FrameKind.data, Buffer.from("hello")), ...encodeFrames(4, FrameKind.data, big), ...encodeFrames(3, FrameKind.end)]);
    const reader = new FrameReader();
    const frames = [];
    for (let offset = 0; offset < bytes.length; offset += 4093) frames.push(...reader.push(bytes.subarray(offset, offset + 4093)));
    expect(frames.map((f) => [f.stream, f.kind, f.payload.length])).toEqual([
      [3, FrameKind.data, 5],
      [4, FrameKind.data, MAX_PAYLOAD],
      [4, FrameKind.data, 10],
      [3, FrameKind.end, 0],
    ]);
    expect(frames[0]!.payload.toString()).toBe("hello");
  });

  it("refuses a frame of an unknown kind or beyond the size limit", () => {
    const head = Buffer.alloc(9);
    head.writeUInt8(9, 4);
    expect(() => new FrameReader().push(head)).toThrow(/unknown kind 9/);
    head.writeUInt8(FrameKind.data, 4);
    head.writeUInt32BE(MAX_PAYLOAD + 1, 5);
    expect(() => new FrameReader().push(head)).toThrow(/at most/);
  });
});

describe("HTTP messages over a stream", () => {
  it("parses a response delimited by its length, chunked, or by the end", () => {
    expect(parseResponse(Buffer.from("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nhi"))).toEqual({ status: 200, statusMessage: "OK", rawHeaders: ["content-type", "text/plain", "content-length", "2"], body: Buffer.from("hi") });
    expect(parseResponse(Buffer.from("HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")).body.toString()).toBe("abcde");
    expect(parseResponse(Buffer.from("HTTP/1.1 204 No Content\r\n\r\n")).body.length).toBe(0);
    expect(() => parseResponse(Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nab"))).toThrow(/after 2 of its 5 bytes/);
    expect(() => parseResponse(Buffer.from("SSH-2.0\r\n\r\n"))).toThrow(/starts with/);
  });

  it("writes a request with its headers as they came and one request per stream", () => {
    expect(serializeRequest("POST", "/a?b=1", ["host", "x", "content-length", "2"], Buffer.from("{}")).toString()).toBe("POST /a?b=1 HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}");
  });
});

/** An owner: a plain HTTP server taking peer channels, answering each request with what it saw of it. */
async function owner(marker: ForwardMarker, handler?: http.RequestListener) {
  const closed: string[] = [];
  const accepted = new Set<Duplex>();
  const server = http.createServer(
    handler ??
      ((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          const body = JSON.stringify({ method: req.method, url: req.url, host: req.headers.host, remote: req.socket.remoteAddress, body: Buffer.concat(chunks).toString() });
          res.writeHead(200, { "content-type": "application/json", "x-seen": "1" }).end(body);
        });
        res.on("close", () => closed.push(res.writableFinished ? "finished" : "hung up"));
      }),
  );
  server.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    if (acceptPeer(req, socket, head, { server, marker, log: () => undefined })) accepted.add(socket);
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => {
    for (const socket of accepted) socket.destroy();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, closed, accepted };
}

async function openLink(links: PeerLinks, url: string): Promise<PeerLink> {
  for (let i = 0; i < 200; i++) {
    const link = links.ready(url);
    if (link) return link;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("the peer channel did not open");
}

const never = { onAbort: () => undefined };

describe("peer channel", () => {
  it("carries many requests at once to the owner's HTTP server and their answers back", async () => {
    const marker = new ForwardMarker("runner-a", SECRET);
    const target = await owner(new ForwardMarker("runner-b", SECRET));
    const links = new PeerLinks(marker, () => undefined);
    cleanups.push(() => links.close());
    expect(links.ready(target.url)).toBeNull(); // connecting: the caller proxies this one
    const link = await openLink(links, target.url);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => link.request(serializeRequest("POST", `/api/sessions/s/tools/read_file?i=${i}`, ["host", "owner", "content-length", String(`{"n":${i}}`.length)], Buffer.from(`{"n":${i}}`)), never)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const seen = answers.map((a) => JSON.parse(a.body.toString()) as { url: string; body: string; remote: string; host: string });
    expect(seen.map((s) => s.url)).toEqual(Array.from({ length: 20 }, (_, i) => `/api/sessions/s/tools/read_file?i=${i}`));
    expect(seen.map((s) => s.body)).toEqual(Array.from({ length: 20 }, (_, i) => `{"n":${i}}`));
    // The owner sees the channel's own address, as it would a proxied request's.
    expect(seen[0]!.remote).toBe("127.0.0.1");
    expect(answers[0]!.rawHeaders).toContain("x-seen");
    await new Promise((r) => setTimeout(r, 20));
    expect(target.closed).toEqual(Array(20).fill("finished"));
  });

  it("is refused to a runner without the deployment's secret, which keeps proxying", async () => {
    const target = await owner(new ForwardMarker("runner-b", SECRET));
    const log: string[] = [];
    const links = new PeerLinks(new ForwardMarker("intruder", "x".repeat(40)), (l) => log.push(l));
    cleanups.push(() => links.close());
    expect(links.ready(target.url)).toBeNull();
    await new Promise((r) => setTimeout(r, 100));
    expect(links.ready(target.url)).toBeNull();
    expect(log[0]).toMatch(/not opened \(the owner answered 403\); forwarding over HTTP, next try in 0.5 s/);
  });

  it("resets the owner's request when the client hangs up: the owner sees its connection close unanswered", async () => {
    let answer: (() => void) | undefined;
    const closed: string[] = [];
    const target = await owner(new ForwardMarker("runner-b", SECRET), (req, res) => {
      res.on("close", () => closed.push(res.writableFinished ? "finished" : "hung up"));
      answer = () => res.end("late");
      req.resume();
    });
    const links = new PeerLinks(new ForwardMarker("runner-a", SECRET), () => undefined);
    cleanups.push(() => links.close());
    const link = await openLink(links, target.url);
    let abort: (() => void) | undefined;
    const pending = link.request(serializeRequest("POST", "/slow", ["host", "owner", "content-length", "0"], Buffer.alloc(0)), { onAbort: (fn) => (abort = fn) });
    await new Promise((r) => setTimeout(r, 30));
    abort?.();
    await expect(pending).rejects.toThrow(/hung up/);
    await new Promise((r) => setTimeout(r, 30));
    expect(closed).toEqual(["hung up"]);
    answer?.();
  });

  it("fails what is in flight when the owner goes, and opens again afterwards", async () => {
    const target = await owner(new ForwardMarker("runner-b", SECRET), (req) => void req.resume());
    const log: string[] = [];
    const links = new PeerLinks(new ForwardMarker("runner-a", SECRET), (l) => log.push(l));
    cleanups.push(() => links.close());
    const link = await openLink(links, target.url);
    const pending = link.request(serializeRequest("POST", "/never", ["host", "owner", "content-length", "0"], Buffer.alloc(0)), never);
    await new Promise((r) => setTimeout(r, 30));
    for (const socket of target.accepted) socket.destroy();
    await expect(pending).rejects.toThrow(/closed/);
    expect(log.some((l) => /peer channel to .* lost/.test(l))).toBe(true);
    expect(await openLink(links, target.url)).toBeDefined();
  });
});
