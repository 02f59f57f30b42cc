import crypto from "node:crypto";
import net, { type AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Repositories } from "@berth/db";
import type { Env } from "../env";
import type { Principal } from "../auth/tokens";
import type { SessionService } from "../sessions/session-service";
import type { ToolService } from "../tools/tool-service";
import { buildServer, type ServerDeps } from "../http/build-server";
import { hostAllowList } from "../http/request-guard";
import { registerSessionRoutes } from "../http/routes/sessions-routes";
import { createForwarding, type Forwarding } from "./create-forwarding";
import { encodeFrame } from "./peer-link-frame";
import { PEER_LINK_PATH, PeerLinks } from "./peer-link";
import { TcpRelay } from "../testing/tcp-relay";
import { outcomeTools } from "../testing/outcome-tools";
import { until } from "../testing/until";

const SECRET = "cluster-secret-0123456789abcdef0123456789";
const KNOWN = "known-token";
const FIRST_SIGHT = "first-sight-token";
/** Who the owner says the token is: the only principal a call may run as, whatever the peer knows. */
const ownersPrincipal: Principal = { userId: "u1", name: "dev", role: "developer", tokenId: "t1", credential: "token" };

/** The owner's tool service: each tool name one outcome (testing/outcome-tools.ts); `hang` waits for its call to be aborted. */
const { tools, calls } = outcomeTools((input) => ({ session: input.sessionId, tool: input.tool, args: input.args, caller: input.caller, name: input.principal.name }));
/** The non-owner's: never called (every call for s1 goes to the owner). */
const notHere: Pick<ToolService, "call"> = {
  call: async () => {
    throw new Error("the non-owner ran a call of the owner's session");
  },
};

const ports: number[] = [];
const apps: FastifyInstance[] = [];
const logged: string[] = [];
let owner: { port: number; url: string; forwarding: Forwarding; requests: () => number };
let nonOwner: { port: number; forwarding: Forwarding };
/** Between the non-owner and the owner: the owner's Runner row names it. */
const relay = new TcpRelay();

/** build-server.ts's server with the session routes and forwarding as create-runner.ts wires them, listening. */
async function runner(id: "runner-a" | "runner-b", opts: { ownerUrl?: string; apiTokens: ServerDeps["apiTokens"] }) {
  const hosts = hostAllowList({ allowedHosts: [], ports: () => ports });
  const forwarding = createForwarding({
    env: { BERTH_RUNNER_ID: id, BERTH_CLUSTER_SECRET: SECRET } as Pick<Env, "BERTH_RUNNER_ID" | "BERTH_REDIS_URL" | "BERTH_CLUSTER_SECRET">,
    repos: { runs: { get: async () => null }, approvals: { get: async () => null } } as unknown as Pick<Repositories, "runs" | "approvals">,
    ownerOf: async () => (opts.ownerUrl ? { runnerId: "runner-a", url: opts.ownerUrl } : null),
    holdsLocally: () => !opts.ownerUrl,
    hosts,
    log: (line) => logged.push(`${id}: ${line}`),
    bodyLimit: 1024,
  })!;
  const serving = opts.ownerUrl ? notHere : tools;
  const app = buildServer({
    repos: { users: {}, ping: async () => ({ ok: true }) } as unknown as ServerDeps["repos"],
    dockerHealth: async () => ({ ok: true }),
    logLevel: "silent",
    apiTokens: opts.apiTokens,
    hosts,
    bodyLimitBytes: 1024,
    tools: serving,
    forwardEarly: forwarding.http.early,
    linkedToolCalls: (answer) => forwarding.peers!.serve(answer),
  });
  registerSessionRoutes(app, { sessions: {} as SessionService, tools: serving as ToolService });
  forwarding.peers!.attach(app.server);
  let requests = 0;
  app.server.on("request", () => requests++);
  await app.listen({ port: 0, host: "127.0.0.1" });
  apps.push(app);
  const { port } = app.server.address() as AddressInfo;
  ports.push(port);
  return { port, url: `http://127.0.0.1:${port}`, forwarding, requests: () => requests };
}

const ownersTokens: ServerDeps["apiTokens"] = {
  authenticate: async (token) => (token === KNOWN || token === FIRST_SIGHT ? ownersPrincipal : null),
  cached: (token) => (token === KNOWN ? ownersPrincipal : undefined),
};

beforeAll(async () => {
  owner = await runner("runner-a", { apiTokens: ownersTokens });
  await relay.listen();
  relay.target = owner.port;
  ports.push(relay.port);
  // The non-owner would take any token as an admin's: the owner must not care.
  const anyone = { userId: "u9", name: "peer's idea", role: "admin", tokenId: "t9", credential: "token" } as Principal;
  nonOwner = await runner("runner-b", { ownerUrl: `http://127.0.0.1:${relay.port}`, apiTokens: { authenticate: async () => anyone, cached: () => anyone } });
});
afterAll(async () => {
  nonOwner.forwarding.http.close();
  await relay.close();
  await Promise.all(apps.map((app) => app.close()));
});

type Request = { path?: string; headers?: Record<string, string>; body?: string | Buffer };

function requestBytes(port: number, request: Request): Buffer {
  const body = typeof request.body === "string" ? Buffer.from(request.body) : (request.body ?? Buffer.alloc(0));
  const headers: Record<string, string> = { host: `127.0.0.1:${port}`, authorization: `Bearer ${KNOWN}`, "content-type": "application/json", "content-length": String(body.length), connection: "close", ...request.headers };
  const head = [`POST ${request.path ?? "/api/sessions/s1/tools/read_file"} HTTP/1.1`];
  for (const [name, value] of Object.entries(headers)) if (value !== "") head.push(`${name}: ${value}`);
  return Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`), body]);
}

/** The whole response as its bytes came, its Date header blanked; `socket` for a caller that hangs up itself. */
function send(port: number, request: Request, opened?: (socket: net.Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(requestBytes(port, request)));
    opened?.(socket);
    const chunks: Buffer[] = [];
    socket.on("data", (data: Buffer) => chunks.push(data));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8").replace(/^date: .*$/im, "date: -")));
  });
}


/** A call through the non-owner that reached the owner with no HTTP request: the link is open. */
async function linked(): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const before = owner.requests();
    await send(nonOwner.port, { body: "{}" });
    if (owner.requests() === before) return;
    if (Date.now() > deadline) throw new Error("the link did not open");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("a tool call through the non-owner goes to the owner over the peer link (peer-link.ts)", () => {
  it("answers byte for byte as the owner answers the same request itself, with no HTTP request to the owner", async () => {
    await linked();
    const requests: Request[] = [
      { body: JSON.stringify({ args: { path: "one.txt" } }) },
      { path: "/api/sessions/s1/tools/park", body: '{"args":{}}' },
      { path: "/api/sessions/s1/tools/missing", body: "{}" },
      { path: "/api/sessions/s1/tools/broken", body: "{}" },
      { body: '{"args":' },
      { body: '{"args":{"path":"a\\ud800"}}' },
      { body: Buffer.from([...Buffer.from('{"args":{"path":"'), 0xff, ...Buffer.from('"}}')]) },
      { headers: { authorization: "Bearer wrong" }, body: "{}" },
      { headers: { authorization: `Bearer ${FIRST_SIGHT}` }, body: "{}" },
      { headers: { origin: `http://127.0.0.1:${owner.port}` }, body: "{}" },
    ];
    for (const request of requests) {
      const before = owner.requests();
      const through = await send(nonOwner.port, request);
      expect({ request, http: owner.requests() - before }).toEqual({ request, http: 0 });
      expect(through).toBe(await send(owner.port, request));
    }
    // What the owner's tool service got: its own principal for the token, the HTTP call's caller.
    const output = JSON.parse(JSON.parse((await send(nonOwner.port, { body: '{"args":{"n":1}}' })).split("\r\n\r\n")[1]!).output);
    expect(output).toEqual({ session: "s1", tool: "read_file", args: { n: 1 }, caller: "api", name: "dev" });
  });

  it("leaves to the HTTP way what the fast path would not take, answered as before", async () => {
    await linked();
    for (const request of [{ path: "/api/sessions/s1/tools/read_file?wait=1", body: "{}" }, { headers: { "content-type": "text/plain" }, body: "{}" }, { body: JSON.stringify({ args: { content: "x".repeat(2000) } }) }]) {
      const before = owner.requests();
      const through = await send(nonOwner.port, request);
      expect(owner.requests() - before).toBe(1);
      // The proxy's own header order (forward-to-owner.ts), the owner's status and body.
      const [direct, proxied] = [await send(owner.port, request), through].map((text) => [text.split("\r\n")[0], text.split("\r\n\r\n")[1]]);
      expect(proxied).toEqual(direct);
    }
  });

  it("aborts the call on the owner when the client hangs up", async () => {
    await linked();
    calls.length = 0;
    let client: net.Socket | undefined;
    const done = send(nonOwner.port, { path: "/api/sessions/s1/tools/hang", body: "{}" }, (socket) => (client = socket));
    await until(() => calls.some((call) => call.tool === "hang"), "the call to reach the owner");
    const call = calls.find((c) => c.tool === "hang")!;
    expect(call.signal?.aborted).toBe(false);
    client!.destroy();
    await done;
    await until(() => call.signal?.aborted === true, "the owner's call to be aborted");
  });

  it("answers 503 for a call in flight when the link breaks, then goes the HTTP way", async () => {
    await linked();
    calls.length = 0;
    const inFlight = send(nonOwner.port, { path: "/api/sessions/s1/tools/hang", body: "{}" });
    await until(() => calls.some((call) => call.tool === "hang"), "the call to reach the owner");
    relay.cut();
    const answer = await inFlight;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(JSON.parse(answer.split("\r\n\r\n")[1]!)).toEqual({
      error: { code: "sandbox_unavailable", message: "Session s1 is held by runner runner-a, which cannot be reached (the link closed); retry once it is back or another runner has adopted the session" },
    });
    const before = owner.requests();
    expect(await send(nonOwner.port, { body: "{}" })).toMatch(/^HTTP\/1\.1 200 /);
    expect(owner.requests() - before).toBe(1);
  });
});

describe("the owner closing", () => {
  it("lets a call in flight over the link finish, then ends the link; the next call goes the HTTP way", async () => {
    await linked();
    calls.length = 0;
    const inFlight = send(nonOwner.port, { path: "/api/sessions/s1/tools/slow", body: "{}" });
    await until(() => calls.some((call) => call.tool === "slow"), "the call to reach the owner");
    const closed = owner.forwarding.peers!.close();
    expect(await inFlight).toMatch(/^HTTP\/1\.1 200 /);
    await closed;
    const before = owner.requests();
    expect(await send(nonOwner.port, { body: "{}" })).toMatch(/^HTTP\/1\.1 200 /);
    expect(owner.requests() - before).toBe(1);
  });
});

describe("the peer link's handshake", () => {
  const upgrade = (headers: Record<string, string>) =>
    [`GET ${PEER_LINK_PATH} HTTP/1.1`, "connection: Upgrade", "upgrade: berth-peer-link-v1", ...Object.entries({ host: `127.0.0.1:${owner.port}`, ...headers }).map(([name, value]) => `${name}: ${value}`), "", ""].join("\r\n");

  /**
   * A hand-made peer: the upgrade, then `frames` once the owner answered; what the owner sent until it closed (or
   * until what it sent matches `enough`).
   */
  function rawPeer(headers: Record<string, string>, frames: (answer: string) => Buffer[], enough?: RegExp): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(owner.port, "127.0.0.1", () => socket.write(upgrade(headers)));
      let text = "";
      socket.on("data", (data: Buffer) => {
        if (!text) for (const frame of frames(data.toString("latin1"))) socket.write(frame);
        text += data.toString("latin1");
        if (enough?.test(text)) socket.destroy();
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(text));
    });
  }

  it("refuses a peer with another secret, and a runner that is not the one expected", async () => {
    // Another deployment's links are refused (owner is closed to links since the last test: a second one here).
    const fresh = await runner("runner-a", { apiTokens: ownersTokens });
    await expect(new PeerLinks({ runnerId: "runner-c", secret: "another-secret-0123456789abcdef01234567", log: () => undefined }).open(fresh.url, "runner-a")).rejects.toThrow(
      "runner runner-a did not prove it holds the cluster secret",
    );
    await expect(new PeerLinks({ runnerId: "runner-c", secret: SECRET, log: () => undefined }).open(fresh.url, "runner-z")).rejects.toThrow(`the runner at ${fresh.url} is not runner runner-z (it says "runner-a")`);
    const link = await new PeerLinks({ runnerId: "runner-c", secret: SECRET, log: () => undefined }).open(fresh.url, "runner-a");
    expect(link.usable).toBe(true);
    link.close();
    owner = fresh;
  });

  it("accepts nothing before the peer's proof: a call first, a wrong proof, a malformed frame all end the link", async () => {
    calls.length = 0;
    logged.length = 0;
    const nonce = crypto.randomBytes(32).toString("hex");
    const headers = { "x-berth-link-runner": "runner-c", "x-berth-link-nonce": nonce };
    const call = encodeFrame({ type: "call", id: 1, sessionId: "s1", tool: "read_file", authorization: `Bearer ${KNOWN}` }, "{}");
    const hello = (proof: string) => encodeFrame({ type: "hello", runnerId: "runner-c", proof });
    const rightProof = (answer: string) => {
      const ownerNonce = /x-berth-link-nonce: ([0-9a-f]{64})/.exec(answer)?.[1] ?? "";
      return crypto.createHmac("sha256", SECRET).update(`berth-peer-link-v1\npeer\nrunner-c\n${nonce}\n${ownerNonce}`).digest("hex");
    };
    expect(await rawPeer(headers, () => [call])).toMatch(/^HTTP\/1\.1 101 /);
    expect(await rawPeer(headers, () => [hello("0".repeat(64)), call])).toMatch(/^HTTP\/1\.1 101 /);
    expect(await rawPeer(headers, (answer) => [hello(rightProof(answer)), Buffer.from([0xff, 0xff, 0xff, 0xff]), call])).toMatch(/^HTTP\/1\.1 101 /);
    expect(calls).toEqual([]);
    expect(logged).toEqual([
      "runner-a: peer link from runner runner-c closed: runner runner-c sent a call before its proof",
      "runner-a: peer link from runner runner-c closed: runner runner-c sent a wrong proof",
      `runner-a: peer link from runner runner-c closed: peer link: a frame of ${0xffffffff} bytes (the limit is ${64 * 1024 * 1024}, the least 4)`,
    ]);
    // The proof right and the frames well made: the call is answered, in one answer frame.
    const answered = await rawPeer(headers, (answer) => [hello(rightProof(answer)), encodeFrame({ type: "cancel", id: 99 }), call], /"status":200}/);
    expect(answered).toContain('{"type":"answer","id":1,"status":200}');
    expect(calls.map((c) => c.tool)).toEqual(["read_file"]);
  });

  it("refuses an upgrade with no runner id or nonce, or for a Host it does not answer", async () => {
    expect(await rawPeer({}, () => [])).toMatch(/^HTTP\/1\.1 400 /);
    expect(await rawPeer({ "x-berth-link-runner": "runner-c", "x-berth-link-nonce": "ab".repeat(32), host: "evil.example" }, () => [])).toMatch(/^HTTP\/1\.1 421 /);
  });
});
