import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, emitWithAck, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

let kit: TestRunner;
beforeAll(async () => {
  kit = await startTestRunner();
});
afterAll(async () => kit?.close());

/** A raw request: fetch may not set Host, and we want exactly the headers a hostile page's browser sends. */
function raw(
  method: string,
  route: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: unknown }> {
  const url = new URL(kit.url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, method, path: route, headers: { host: url.host, ...headers } },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, json: text ? (JSON.parse(text) as unknown) : null }),
        );
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

/** Connects with the given Origin and a valid token (and a cookie, as a browser would carry); resolves with the outcome. */
function socketWith(opts: {
  origin?: string;
  token?: string;
  transport: "websocket" | "polling";
}): Promise<{ socket: Socket; connected: boolean; error?: string }> {
  const socket = connect(kit.url, {
    transports: [opts.transport],
    forceNew: true,
    reconnection: false,
    auth: { token: opts.token ?? TEST_ADMIN_TOKEN },
    extraHeaders: { ...(opts.origin ? { origin: opts.origin } : {}), cookie: "berth_browser=whatever" },
  });
  return new Promise((resolve) => {
    socket.once("connect", () => resolve({ socket, connected: true }));
    socket.once("connect_error", (error) => {
      socket.close();
      resolve({ socket, connected: false, error: error.message });
    });
  });
}

const webOrigin = "http://127.0.0.1:3000";
const hostile = "http://127.0.0.1:8123";

describe("browser-facing guards on the runner", () => {
  it("refuses a socket.io handshake and WebSocket upgrade from a foreign origin, accepts the web origin", async () => {
    for (const transport of ["websocket", "polling"] as const) {
      const refused = await socketWith({ origin: hostile, transport });
      expect(refused.connected, transport).toBe(false);
      const other = await socketWith({ origin: "http://localhost:9999", transport });
      expect(other.connected, transport).toBe(false);
      const accepted = await socketWith({ origin: webOrigin, transport });
      expect(accepted.error ?? "connected", transport).toBe("connected");
      accepted.socket.close();
    }
  });

  it("answers only allowed Host names: 421 with our error shape otherwise, JSON-RPC on /mcp", async () => {
    const rebound = await raw("GET", "/api/me", {
      host: "evil.example.com",
      authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
    });
    expect(rebound.status).toBe(421);
    expect(rebound.json).toMatchObject({
      error: { code: "misdirected_request", message: expect.stringContaining("evil.example.com") },
    });
    const mcp = await raw(
      "POST",
      "/mcp/ses_x",
      {
        host: "evil.example.com",
        origin: "http://evil.example.com",
        "content-type": "application/json",
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      },
      "{}",
    );
    expect(mcp.status).toBe(421);
    expect(mcp.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
    const ok = await raw("GET", "/api/me", { authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
    expect(ok.status).toBe(200);
  });

  it("does not create a session from a cross-port bodyless POST carrying the cookie", async () => {
    const before = (await kit.api<{ sessions: unknown[] }>("GET", "/api/sessions")).body;
    const cookie = `berth_token=${TEST_ADMIN_TOKEN}`;
    const withOrigin = await raw("POST", "/api/sessions", { cookie, origin: hostile });
    expect(withOrigin.status).toBe(403);
    expect(withOrigin.json).toMatchObject({ error: { code: "forbidden", message: expect.stringContaining(hostile) } });
    const noOrigin = await raw("POST", "/api/sessions", { cookie, "sec-fetch-site": "same-site" });
    expect(noOrigin.status).toBe(403);
    const after = (await kit.api<{ sessions: unknown[] }>("GET", "/api/sessions")).body;
    expect(after.sessions.length).toBe(before.sessions.length);
  });

  it("uses {error: {code, message}} for unknown routes, bad URLs, bad content types and lone surrogates", async () => {
    const auth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const unknown = await raw("GET", "/api/nope", auth);
    expect(unknown).toMatchObject({
      status: 404,
      json: { error: { code: "not_found", message: "No route GET /api/nope" } },
    });
    const method = await raw("PATCH", "/healthz", auth);
    expect(method).toMatchObject({ status: 404, json: { error: { code: "not_found" } } });
    // A lone surrogate spelled in the URL (CESU-8 bytes are not UTF-8): a client error, never a 500.
    // (In a query string it is decoded to U+FFFD: just another value.)
    expect((await raw("GET", "/api/runs?sessionId=%ED%A0%80", auth)).status).toBe(200);
    for (const route of ["/api/skills/%ED%A0%80", "/api/sessions/%ED%B0%80"]) {
      const reply = await raw("GET", route, auth);
      expect(reply.status, route).toBeGreaterThanOrEqual(400);
      expect(reply.status, route).toBeLessThan(500);
      expect(reply.json, route).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    }
    const percent = await raw("GET", "/api/sessions/%E0%A4%A", auth);
    expect(percent.status).toBe(400);
    expect(percent.json).toMatchObject({ error: { code: "bad_request" } });
    const type = await raw("POST", "/api/skills", { ...auth, "content-type": "application/xml" }, "<x/>");
    expect(type.status, JSON.stringify(type.json)).toBe(415);
    expect(type.json).toMatchObject({ error: { code: "bad_request" } });
    for (const [route, body, field] of [
      ["/api/users", '{"name":"a\\ud800b","role":"viewer"}', "name"],
      ["/api/sessions", '{"name":"\\udc00"}', "name"],
      ["/api/skills", '{"name":"s","description":"d","body":"x\\ud83d"}', "body"],
      [
        "/api/policy-rules",
        '{"tool":"bash","commandPrefix":"\\ud800","effect":"deny","mustMatch":[],"mustNotMatch":[]}',
        "commandPrefix",
      ],
      // The tool-call route does not scan its body again: the JSON body parser refuses it first.
      ["/api/sessions/ses_none/tools/read_file", '{"args":{"path":"a\\ud800"}}', "args.path"],
    ] as const) {
      const reply = await raw("POST", route, { ...auth, "content-type": "application/json" }, body);
      expect(reply.status, route).toBe(400);
      expect((reply.json as { error: { message: string } }).error.message, route).toMatch(
        new RegExp(`${field}: must be valid Unicode`),
      );
    }
  });

  it("answers a socket event sent with only an ack, through that ack", async () => {
    const socket = await kit.socket();
    const answer = await new Promise<{ code: string; message: string } | null>((resolve) =>
      socket.emit("tool:call", (error: { code: string; message: string } | null) => resolve(error)),
    );
    expect(answer?.code).toBe("bad_request");
    const surrogate = await new Promise<{ code: string; message: string } | null>((resolve) =>
      socket.emit("session:join", { sessionId: "\ud800" }, (error: { code: string; message: string } | null) =>
        resolve(error),
      ),
    );
    expect(surrogate?.message).toMatch(/sessionId: must be valid Unicode/);
  });

  it("keeps the database, its WAL and the run logs private to the runner's user", async () => {
    const entries = fs.readdirSync(kit.dataDir, { recursive: true, withFileTypes: true });
    expect(entries.length).toBeGreaterThan(0);
    expect(fs.statSync(kit.dataDir).mode & 0o777).toBe(0o700);
    for (const entry of entries) {
      const file = path.join(entry.parentPath, entry.name);
      const mode = fs.statSync(file).mode & 0o777;
      expect(mode, file).toBe(entry.isDirectory() ? 0o700 : 0o600);
    }
    expect(fs.existsSync(path.join(kit.dataDir, "berth.db"))).toBe(kit.databaseKind === "sqlite");
  });
});

describe("revoked and removed credentials", () => {
  async function developer(name: string): Promise<{ userId: string; tokenId: string; token: string }> {
    const user = await kit.api<{ id: string }>("POST", "/api/users", { name, role: "developer" });
    const token = await kit.api<{ id: string; token: string }>("POST", "/api/tokens", { userId: user.body.id });
    return { userId: user.body.id, tokenId: token.body.id, token: token.body.token };
  }
  const disconnected = (socket: Socket) =>
    new Promise<string>((resolve) => socket.once("disconnect", (reason) => resolve(reason)));

  it("ends a revoked token's open socket at once: it cannot write_file after", async () => {
    const dev = await developer("revoked-dev");
    const sessionId = await kit.createSession({ token: dev.token });
    const socket = await kit.socket(dev.token);
    await emitWithAck(socket, "tool:call", {
      sessionId,
      tool: "write_file",
      args: { path: "before.txt", content: "ok" },
    });
    const gone = disconnected(socket);
    expect((await kit.api("DELETE", `/api/tokens/${dev.tokenId}`)).status).toBe(204);
    expect(await gone).toBe("io server disconnect");
    socket.emit("tool:call", { sessionId, tool: "write_file", args: { path: "after.txt", content: "forged" } });
    socket.connect();
    await new Promise((resolve) => socket.once("connect_error", resolve));
    const read = await kit.tool<{ ok: boolean }>(sessionId, "read_file", { path: "after.txt" });
    expect(read.body.ok).toBe(false);
    expect((await kit.tool<{ ok: boolean }>(sessionId, "read_file", { path: "before.txt" })).body.ok).toBe(true);
  });

  it("disables a user (tokens refused, sockets ended) and enables them again", async () => {
    const dev = await developer("disabled-dev");
    const socket = await kit.socket(dev.token);
    const gone = disconnected(socket);
    const disabled = await kit.api<{ disabled: boolean }>("PATCH", `/api/users/${dev.userId}`, { disabled: true });
    expect(disabled.body.disabled).toBe(true);
    expect(await gone).toBe("io server disconnect");
    expect((await kit.api("GET", "/api/me", undefined, dev.token)).status).toBe(401);
    await kit.api("PATCH", `/api/users/${dev.userId}`, { disabled: false });
    expect((await kit.api("GET", "/api/me", undefined, dev.token)).status).toBe(200);
    expect((await kit.api("PATCH", `/api/users/${dev.userId}`, { disabled: "yes" })).status).toBe(400);
  });

  it("deletes a user: sessions gone, runs kept with their name, tokens revoked, sockets ended; never oneself", async () => {
    const dev = await developer("deleted-dev");
    const sessionId = await kit.createSession({ token: dev.token });
    const ran = await kit.tool<{ ok: boolean }>(sessionId, "bash", { command: "echo hi" }, { token: dev.token });
    expect(ran.body.ok).toBe(true);
    const socket = await kit.socket(dev.token);
    const gone = disconnected(socket);
    expect((await kit.api("DELETE", `/api/users/${dev.userId}`)).status).toBe(204);
    expect(await gone).toBe("io server disconnect");
    expect((await kit.api("GET", "/api/me", undefined, dev.token)).status).toBe(401);
    expect((await kit.api("GET", `/api/sessions/${sessionId}`)).status).toBe(404);
    const users = await kit.api<{ users: { id: string }[] }>("GET", "/api/users");
    expect(users.body.users.map((u) => u.id)).not.toContain(dev.userId);
    const runs = await kit.api<{ runs: { userId: string; sessionId: string }[] }>(
      "GET",
      `/api/runs?sessionId=${sessionId}`,
    );
    expect(runs.body.runs.length).toBeGreaterThan(0);
    const tokens = await kit.api<{ tokens: { id: string; userName: string; revokedAt: string | null }[] }>(
      "GET",
      "/api/tokens",
    );
    expect(tokens.body.tokens.find((t) => t.id === dev.tokenId)).toMatchObject({
      userName: "deleted-dev",
      revokedAt: expect.any(String),
    });
    const me = await kit.api<{ userId: string }>("GET", "/api/me");
    const self = await kit.api<{ error: { code: string; message: string } }>("DELETE", `/api/users/${me.body.userId}`);
    expect(self.status).toBe(409);
    expect(self.body.error.message).toMatch(/yourself|built-in admin/);
    expect((await kit.api("DELETE", `/api/users/${dev.userId}`)).status).toBe(404);
  });
});
