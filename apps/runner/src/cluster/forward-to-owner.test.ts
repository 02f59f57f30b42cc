import http from "node:http";
import net, { type AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { toApiError } from "@berth/protocol";
import type { Principal } from "../auth/tokens";
import { FORWARD_MARKER_HEADER, ForwardMarker } from "./forward-marker";
import { ForwardToOwner, forwardTargetOf, type SessionOwner } from "./forward-to-owner";
import { buildServer, type ServerDeps } from "../http/build-server";
import { hostAllowList } from "../http/request-guard";
import { sendJsonRpcHttpError } from "../http/routes/mcp-routes";

const SECRET = "cluster-secret-0123456789abcdef0123456789";

describe("forwardTargetOf: what needs the session's sandbox", () => {
  it.each([
    ["POST", "/api/sessions/s1/tools/bash?wait=5", { kind: "session", id: "s1" }],
    ["GET", "/api/sessions/s1/download?path=.", { kind: "session", id: "s1" }],
    ["POST", "/api/sessions/s1/restart", { kind: "session", id: "s1" }],
    ["DELETE", "/api/sessions/s1", { kind: "session", id: "s1" }],
    ["GET", "/sessions/s1/ports/8000/a/b?c=d", { kind: "session", id: "s1" }],
    ["GET", "/sessions/s1/ports", { kind: "session", id: "s1" }],
    ["POST", "/mcp/s1", { kind: "session", id: "s1" }],
    ["POST", "/api/runs/r1/cancel", { kind: "run", id: "r1" }],
    ["GET", "/api/approvals/ap1/files", { kind: "approval", id: "ap1" }],
  ])("%s %s → %j", (method, url, target) => {
    expect(forwardTargetOf(method, url)).toEqual(target);
  });

  it.each([
    ["GET", "/api/sessions/s1"],
    ["PATCH", "/api/sessions/s1"],
    ["GET", "/api/sessions"],
    ["GET", "/api/runs/r1/logs"],
    ["POST", "/api/approvals/ap1"],
    ["GET", "/api/sessions/%E0%A4%A/tools"],
  ])("%s %s is answered where it lands", (method, url) => {
    expect(forwardTargetOf(method, url)).toBeNull();
  });
});

/** The owner: a plain HTTP server that reports what reached it and streams its answers. */
let owner: http.Server;
let ownerUrl: string;
const seen: { headers: http.IncomingHttpHeaders; body: Buffer; url: string }[] = [];

beforeAll(async () => {
  owner = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks), url: req.url ?? "" });
      if (req.url?.startsWith("/api/sessions/s1/download")) {
        // Written in pieces with pauses: the front must pass each piece on, not wait for the end.
        res.writeHead(200, { "content-type": "application/gzip" });
        res.write("part1");
        setTimeout(() => res.end("part2"), 200);
        return;
      }
      res.writeHead(201, [["set-cookie", "a=1"], ["set-cookie", "b=2"], ["x-owner", "yes"], ["connection", "close"]].flat());
      res.end(`echo:${Buffer.concat(chunks).toString()}`);
    });
  });
  await new Promise<void>((resolve) => owner.listen(0, "127.0.0.1", resolve));
  ownerUrl = `http://127.0.0.1:${(owner.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => owner.close(resolve));
});

const fronts: FastifyInstance[] = [];
afterEach(async () => {
  for (const front of fronts.splice(0)) await front.close();
  seen.length = 0;
});

/** What a front's owner lookup does: answer from `owners`, or fail as a lost database does. */
type Owners = Record<string, SessionOwner | null> | "lookup fails";

function forwardToOwner(opts: { owners: Owners; secret?: string | undefined; held?: string[]; lookups?: string[]; logged?: string[] }) {
  return new ForwardToOwner({
    runnerId: "runner-b",
    marker: new ForwardMarker("runner-b", "secret" in opts ? opts.secret : SECRET),
    ownerOf: async (sessionId) => {
      opts.lookups?.push(sessionId);
      if (opts.owners === "lookup fails") throw new Error("connection to the database lost");
      return opts.owners[sessionId] ?? null;
    },
    holdsLocally: (sessionId) => opts.held?.includes(sessionId) ?? false,
    sessionOfRun: async (runId) => (runId === "r1" ? "s1" : null),
    sessionOfApproval: async () => null,
    log: (line) => opts.logged?.push(line),
    // What it admits is create-forwarding's, and tested there.
    admitsEarly: () => true,
  });
}

/** A runner's front: `early` on the raw request before Fastify routes it (as build-server.ts wires it), then Fastify. */
async function front(opts: Parameters<typeof forwardToOwner>[0]) {
  const forward = forwardToOwner(opts);
  const app = Fastify();
  app.setErrorHandler((error, _request, reply) => {
    const { status, body } = toApiError(error);
    return reply.status(status).send(body);
  });
  app.all("/*", async () => ({ answeredBy: "front" }));
  const [routed] = app.server.listeners("request") as ((req: http.IncomingMessage, res: http.ServerResponse) => void)[];
  app.server.removeAllListeners("request").on("request", (req: http.IncomingMessage, res: http.ServerResponse) => forward.early(req, res, () => routed!(req, res)));
  await app.listen({ port: 0, host: "127.0.0.1" });
  fronts.push(app);
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, forward };
}

/** build-server.ts's server, a principal for every token (authentication is tested elsewhere), listening. */
async function runnerServer(forwardEarly?: ServerDeps["forwardEarly"], refuse?: Error): Promise<string> {
  let port = 0;
  const app = buildServer({
    repos: { users: {}, ping: async () => ({ ok: true }) } as unknown as ServerDeps["repos"],
    dockerHealth: async () => ({ ok: true }),
    logLevel: "silent",
    apiTokens: { authenticate: async () => ({ userId: "u1", role: "developer", caller: "api" }) as unknown as Principal },
    hosts: hostAllowList({ allowedHosts: [], ports: () => [port] }),
    ...(forwardEarly ? { forwardEarly } : {}),
  });
  // The reference: the same error thrown where a Fastify hook would meet it, answered by build-server's handler.
  if (refuse) app.addHook("onRequest", async () => Promise.reject(refuse));
  // The MCP route answers its refusals in JSON-RPC (mcp-routes.ts), hooks' included.
  app.all("/mcp/:sessionId", { errorHandler: sendJsonRpcHttpError }, async () => ({ answeredBy: "mcp" }));
  await app.listen({ port: 0, host: "127.0.0.1" });
  fronts.push(app);
  port = (app.server.address() as AddressInfo).port;
  return `http://127.0.0.1:${port}`;
}

/** One request's response as its bytes came, its Date header blanked. */
function rawResponse(url: string, request: (host: string) => string): Promise<string> {
  const { host, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(request(host)));
    let got = "";
    socket.on("data", (data: Buffer) => {
      got += data.toString();
      const head = got.indexOf("\r\n\r\n");
      const length = /^content-length: (\d+)$/im.exec(got);
      if (head < 0 || !length || got.length - head - 4 < Number(length[1])) return;
      socket.destroy();
      resolve(got.replace(/^date: .*$/im, "date: -"));
    });
    socket.on("error", reject);
  });
}

describe("ForwardToOwner.early", () => {
  it("proxies a request for another runner's session: body, status and headers both ways, the credential as sent, a marker the owner can verify", async () => {
    const { url } = await front({ owners: { s1: { runnerId: "runner-a", url: ownerUrl } } });
    const response = await fetch(`${url}/api/sessions/s1/tools/write_file?wait=5`, {
      method: "POST",
      headers: { authorization: "Bearer tok", "content-type": "application/json", [FORWARD_MARKER_HEADER]: "runner-x 1 forged" },
      body: JSON.stringify({ args: { path: "a" } }),
    });
    expect(response.status).toBe(201);
    expect(await response.text()).toBe('echo:{"args":{"path":"a"}}');
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(response.headers.get("x-owner")).toBe("yes");
    const [reached] = seen;
    expect(reached?.url).toBe("/api/sessions/s1/tools/write_file?wait=5");
    expect(reached?.headers.authorization).toBe("Bearer tok");
    expect(reached?.headers.host).toBe(new URL(ownerUrl).host);
    expect(reached?.headers["x-forwarded-host"]).toBe(new URL(url).host);
    // The client's forged marker is not what arrives: the front's own, which the owner believes.
    const owners = new ForwardMarker("runner-a", SECRET);
    expect(owners.verify(reached?.headers[FORWARD_MARKER_HEADER], "/api/sessions/s1/tools/write_file")).toBe("runner-b");
  });

  it("answers locally what this runner holds, what nobody holds, and what only needs the database", async () => {
    const { url } = await front({ owners: { s1: { runnerId: "runner-a", url: ownerUrl }, s2: null } });
    for (const [method, path] of [["POST", "/api/sessions/s2/tools/bash"], ["GET", "/api/sessions/s1"], ["GET", "/api/runs/r9/cancel"]] as const) {
      const response = await fetch(`${url}${path}`, { method });
      expect(await response.json()).toEqual({ answeredBy: "front" });
    }
    expect(seen).toHaveLength(0);
  });

  it("asks the database once for a burst to another runner's session, and never for a session whose container is here", async () => {
    const lookups: string[] = [];
    const { url } = await front({ owners: { s1: { runnerId: "runner-a", url: ownerUrl }, s3: { runnerId: "runner-a", url: ownerUrl } }, held: ["s3"], lookups });
    for (let i = 0; i < 3; i++) expect((await fetch(`${url}/api/sessions/s1/tools/bash`, { method: "POST" })).status).toBe(201);
    expect(await (await fetch(`${url}/api/sessions/s3/tools/bash`, { method: "POST" })).json()).toEqual({ answeredBy: "front" });
    expect(lookups).toEqual(["s1"]);
  });

  it("streams a response as the owner writes it (a download is not held until its end)", async () => {
    const { url } = await front({ owners: { s1: { runnerId: "runner-a", url: ownerUrl } } });
    const response = await fetch(`${url}/api/sessions/s1/download?path=.`);
    const reader = response.body!.getReader();
    const first = await reader.read();
    // The first piece arrives while the owner still holds back the second (200 ms later).
    expect(Buffer.from(first.value!).toString()).toBe("part1");
    let rest = "";
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest += Buffer.from(next.value).toString();
    expect(rest).toBe("part2");
  });

  it("forwards a run's cancel to the owner of the run's session", async () => {
    const { url } = await front({ owners: { s1: { runnerId: "runner-a", url: ownerUrl } } });
    const response = await fetch(`${url}/api/runs/r1/cancel`, { method: "POST" });
    expect(response.status).toBe(201);
    expect(seen[0]?.url).toBe("/api/runs/r1/cancel");
  });

  it("is a 503 naming the session and the runner when the owner cannot be reached", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const { url } = await front({ owners: { s1: { runnerId: "runner-a", url: deadUrl } } });
    const response = await fetch(`${url}/api/sessions/s1/tools/bash`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("sandbox_unavailable");
    expect(body.error.message).toMatch(/^Session s1 is held by runner runner-a, which cannot be reached \(ECONNREFUSED\)/);
    expect(body.error.message).not.toContain(deadUrl);
    // MCP callers get it as JSON-RPC.
    const mcp = await fetch(`${url}/mcp/s1`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(mcp.status).toBe(503);
    expect(((await mcp.json()) as { jsonrpc: string; error: { message: string } }).error.message).toMatch(/runner runner-a, which cannot be reached/);
  });

  it("never makes a second hop: a request another runner forwarded here for a session held elsewhere is refused", async () => {
    const { url } = await front({ owners: { s1: { runnerId: "runner-c", url: ownerUrl } } });
    const marker = new ForwardMarker("runner-a", SECRET).sign("/api/sessions/s1/tools/bash");
    const response = await fetch(`${url}/api/sessions/s1/tools/bash`, { method: "POST", headers: { [FORWARD_MARKER_HEADER]: marker } });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "Session s1 is now held by runner runner-c (runner runner-a forwarded this request to runner runner-b); retry the request",
    );
    expect(seen).toHaveLength(0);
  });

  it("refuses a second hop also while it remembers the session's owner from a request a moment before", async () => {
    const { url } = await front({ owners: { s1: { runnerId: "runner-c", url: ownerUrl } } });
    expect((await fetch(`${url}/api/sessions/s1/tools/bash`, { method: "POST" })).status).toBe(201);
    const marker = new ForwardMarker("runner-a", SECRET).sign("/api/sessions/s1/tools/bash");
    const response = await fetch(`${url}/api/sessions/s1/tools/bash`, { method: "POST", headers: { [FORWARD_MARKER_HEADER]: marker } });
    expect(response.status).toBe(503);
    expect(seen).toHaveLength(1);
  });

  it("refuses to forward without the cluster secret, saying so", async () => {
    const { url } = await front({ owners: { s1: { runnerId: "runner-a", url: ownerUrl } }, secret: undefined });
    const response = await fetch(`${url}/api/sessions/s1/tools/bash`, { method: "POST" });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/runner runner-b cannot forward to it: BERTH_CLUSTER_SECRET is not set/);
    expect(seen).toHaveLength(0);
  });

  it("asks once about a request it leaves to Fastify", async () => {
    const lookups: string[] = [];
    const { url } = await front({ owners: { s2: null }, lookups });
    expect(await (await fetch(`${url}/api/sessions/s2/tools/bash`, { method: "POST" })).json()).toEqual({ answeredBy: "front" });
    expect(lookups).toEqual(["s2"]);
  });

  it("passes a small body on whole and a body of unknown length as it streams, each arriving as sent", async () => {
    const { url } = await front({ owners: { s1: { runnerId: "runner-a", url: ownerUrl } } });
    const small = await fetch(`${url}/api/sessions/s1/tools/write_file`, { method: "POST", body: "x".repeat(1000) });
    expect(await small.text()).toBe(`echo:${"x".repeat(1000)}`);
    const pieces = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(Buffer.from("a".repeat(70_000)));
        controller.enqueue(Buffer.from("b"));
        controller.close();
      },
    });
    const streamed = await fetch(`${url}/api/sessions/s1/tools/write_file`, { method: "POST", body: pieces, duplex: "half" } as RequestInit);
    expect(await streamed.text()).toBe(`echo:${"a".repeat(70_000)}b`);
    expect(seen.map((s) => s.headers["transfer-encoding"] ?? s.headers["content-length"])).toEqual(["1000", "chunked"]);
  });

  it.each([
    ["a lookup that failed", { owners: "lookup fails" as const }, null],
    ["a marker's 'now held by'", { owners: { s1: { runnerId: "runner-c", url: "http://127.0.0.1:9" } } }, "runner-a"],
    ["no BERTH_CLUSTER_SECRET", { owners: { s1: { runnerId: "runner-c", url: "http://127.0.0.1:9" } }, secret: undefined }, null],
  ])("answers %s itself, byte for byte as the runner answers the same error (in JSON-RPC on /mcp/), asking once", async (_case, opts, markedBy) => {
    for (const path of ["/api/sessions/s1/tools/bash", "/mcp/s1"]) {
      const lookups: string[] = [];
      const logged: string[] = [];
      const marker = markedBy ? new ForwardMarker(markedBy, SECRET).sign(path) : undefined;
      const error = await forwardToOwner(opts).ownerFor(forwardTargetOf("POST", path), marker, path).then(() => new Error("ownerFor did not refuse"), (refused: Error) => refused);
      const forward = forwardToOwner({ ...opts, lookups, logged });
      const request = (host: string) =>
        `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer tok\r\n${marker ? `${FORWARD_MARKER_HEADER}: ${marker}\r\n` : ""}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
      const answered = await rawResponse(await runnerServer(forward.early), request);
      expect(answered).toBe(await rawResponse(await runnerServer(undefined, error), request));
      expect(answered).toMatch(/^HTTP\/1\.1 50[03] /);
      if (path.startsWith("/mcp/")) expect(answered).toContain('{"jsonrpc":"2.0","error":{"code":');
      expect(lookups).toEqual(["s1"]);
      expect(logged).toEqual([`deciding where POST ${path} goes failed: ${error.message}`]);
    }
  });
});
