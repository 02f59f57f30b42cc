import net from "node:net";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../auth/tokens";
import type { SessionService } from "../sessions/session-service";
import type { ToolService } from "../tools/tool-service";
import { buildServer, type ServerDeps } from "./build-server";
import { hostAllowList } from "./request-guard";
import { registerSessionRoutes } from "./routes/sessions-routes";
import { outcomeTools } from "../testing/outcome-tools";

const KNOWN = "known-token";
const FIRST_SIGHT = "first-sight-token";
const principal: Principal = { userId: "u1", name: "dev", role: "developer", tokenId: "t1", credential: "token" };

/** A tool service behind its interface: each tool name is one kind of outcome the route answers (testing/outcome-tools.ts). */
const { tools, calls } = outcomeTools((input) => ({ session: input.sessionId, tool: input.tool, args: input.args, caller: input.caller, waitMs: input.waitMs, allow: input.allow ?? null }));

const ports: number[] = [];
const servers: FastifyInstance[] = [];
/** Requests Fastify answered on the server with the fast path: the ones the fast path handed on. */
let reachedFastify = 0;

/** build-server.ts's server with the session routes, with the fast path (tools given) or without it (as before). */
async function server(fastPath: boolean): Promise<number> {
  const app = buildServer({
    repos: { users: {}, ping: async () => ({ ok: true }) } as unknown as ServerDeps["repos"],
    dockerHealth: async () => ({ ok: true }),
    logLevel: "silent",
    apiTokens: {
      authenticate: async (token) => (token === KNOWN || token === FIRST_SIGHT ? principal : null),
      cached: (token) => (token === KNOWN ? principal : undefined),
    },
    // Both servers answer both ports, so the refusals' messages (which list them) are the same text.
    hosts: hostAllowList({ allowedHosts: [], ports: () => ports }),
    bodyLimitBytes: 1024,
    ...(fastPath ? { tools } : {}),
  });
  registerSessionRoutes(app, { sessions: {} as SessionService, tools: tools as ToolService });
  if (fastPath)
    app.addHook("onResponse", (_request, _reply, done) => {
      reachedFastify++;
      done();
    });
  await app.listen({ port: 0, host: "127.0.0.1" });
  servers.push(app);
  const { port } = app.server.address() as AddressInfo;
  ports.push(port);
  return port;
}

let withFastPath = 0;
let fastifyOnly = 0;
beforeAll(async () => {
  withFastPath = await server(true);
  fastifyOnly = await server(false);
});
afterAll(async () => {
  await Promise.all(servers.map((app) => app.close()));
});

type Request = { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean };

/** The bytes of one HTTP/1.1 request to `port`; a default Host, token and JSON content type unless overridden. */
function requestBytes(port: number, request: Request): Buffer {
  const body = typeof request.body === "string" ? Buffer.from(request.body) : (request.body ?? Buffer.alloc(0));
  const headers: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    authorization: `Bearer ${KNOWN}`,
    "content-type": "application/json",
    ...(request.chunked ? { "transfer-encoding": "chunked" } : { "content-length": String(body.length) }),
    connection: "close",
    ...request.headers,
  };
  const head = [`${request.method ?? "POST"} ${request.path ?? "/api/sessions/s1/tools/read_file"} HTTP/1.1`];
  for (const [name, value] of Object.entries(headers)) if (value !== "") head.push(`${name}: ${value}`);
  const chunked = request.chunked ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")]) : body;
  return Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`), chunked]);
}

/** The whole response as its bytes came (the connection is closed after it), its Date header blanked. */
function send(port: number, request: Request): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.end(requestBytes(port, request)));
    const chunks: Buffer[] = [];
    socket.on("data", (data: Buffer) => chunks.push(data));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8").replace(/^date: .*$/im, "date: -")));
  });
}

/** The same request to both servers: the answers must be the same bytes; returns the status, body and whether Fastify saw it. */
async function both(request: Request): Promise<{ status: number; body: unknown; viaFastify: boolean }> {
  const before = reachedFastify;
  const fast = await send(withFastPath, request);
  const viaFastify = reachedFastify > before;
  const reference = await send(fastifyOnly, request);
  expect(fast).toBe(reference);
  const [head = "", text = ""] = fast.split("\r\n\r\n");
  expect(head).toMatch(/^content-type: application\/json; charset=utf-8$/im);
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: JSON.parse(text), viaFastify };
}

describe("the tool call's fast path (tool-call-fast-path.ts) answers as the Fastify route does", () => {
  it("answers a call with a known credential itself: the route's result, status and headers", async () => {
    const answer = await both({ body: JSON.stringify({ args: { path: "one.txt" } }) });
    expect(answer).toEqual({
      status: 200,
      body: { ok: true, output: JSON.stringify({ session: "s1", tool: "read_file", args: { path: "one.txt" }, caller: "api", waitMs: 0, allow: null }) },
      viaFastify: false,
    });
    // No args, a charset, a tool name with dots and dashes: still the fast path, the same answer.
    const bare = await both({ path: "/api/sessions/s-1_x/tools/srv.do-it", headers: { "content-type": "application/json; charset=utf-8" }, body: "{}" });
    expect(bare.status).toBe(200);
    expect(bare.viaFastify).toBe(false);
    expect(JSON.parse((bare.body as { output: string }).output)).toMatchObject({ session: "s-1_x", tool: "srv.do-it", args: {} });
  });

  it("answers a parked call 202, a tool's refusal with its status, and a 5xx without its internal message", async () => {
    expect(await both({ path: "/api/sessions/s1/tools/park", body: '{"args":{}}' })).toEqual({
      status: 202,
      body: { status: "parked", approvalId: "ap_1", text: "bash rm", sha256: "ab".repeat(32), expiresAt: "2026-12-02T17:00:00.000Z" },
      viaFastify: false,
    });
    expect(await both({ path: "/api/sessions/s1/tools/missing", body: "{}" })).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "No tool missing" } },
      viaFastify: false,
    });
    // A result JSON cannot spell (Fastify's serializer throws): its error handler's 500, from both.
    expect((await both({ path: "/api/sessions/s1/tools/bigint", body: "{}" })).status).toBe(500);
    expect(await both({ path: "/api/sessions/s1/tools/broken", body: "{}" })).toEqual({
      status: 500,
      body: { error: { code: "internal", message: "Internal error" } },
      viaFastify: false,
    });
  });

  it("refuses a bad body with the same 400: not JSON, prototype poisoning, a lone surrogate, not an object", async () => {
    const bad = [
      ['{"args":', "Body is not valid JSON but content-type is set to 'application/json'"],
      [" ", "Body is not valid JSON but content-type is set to 'application/json'"],
      ['{"__proto__":{"x":1}}', "Body is not valid JSON but content-type is set to 'application/json'"],
      ['{"args":{"path":"a\\ud800"}}', "Invalid body: args.path: must be valid Unicode (a lone UTF-16 surrogate \\ud800 at index 1)"],
      ["[1]", "Invalid body: expected object, received array"],
    ];
    for (const [body, message] of bad) {
      const answer = await both({ body });
      expect(answer.status).toBe(400);
      expect(answer.viaFastify).toBe(false);
      expect((answer.body as { error: { code: string; message: string } }).error.code).toBe("bad_request");
      expect((answer.body as { error: { message: string } }).error.message).toContain(message!.split(":")[0]);
    }
    // Bytes that are not UTF-8 are decoded as Fastify decodes them (U+FFFD), not refused.
    const invalid = await both({ body: Buffer.from([...Buffer.from('{"args":{"path":"'), 0xff, ...Buffer.from('"}}')]) });
    expect(invalid.status).toBe(200);
  });

  it("hands Fastify what it is not sure of, which answers as before: content type, size, credential, Host, Origin, cookie, query", async () => {
    // The fourth value: Fastify's hooks see it (not a request its router refuses before them).
    const cases: [Request, number, string, boolean?][] = [
      // Fastify's own text/plain parser gives the route a string, which is not an object.
      [{ headers: { "content-type": "text/plain" }, body: "{}" }, 400, "bad_request"],
      [{ headers: { "content-type": "" }, body: "{}" }, 415, "bad_request"],
      [{ headers: { "content-type": "Application/JSON" }, body: '{"args":{}}' }, 200, ""],
      [{ body: JSON.stringify({ args: { content: "x".repeat(2000) } }) }, 413, "payload_too_large"],
      [{ headers: { authorization: "" }, body: "{}" }, 401, "unauthorized"],
      [{ headers: { authorization: "Bearer wrong" }, body: "{}" }, 401, "unauthorized"],
      [{ headers: { authorization: `Bearer ${FIRST_SIGHT}` }, body: "{}" }, 200, ""],
      [{ headers: { origin: "http://evil.example" }, body: "{}" }, 403, "forbidden"],
      [{ headers: { host: "evil.example" }, body: "{}" }, 421, "misdirected_request"],
      [{ headers: { authorization: "", cookie: "berth_session=x" }, body: "{}" }, 403, "forbidden"],
      [{ path: "/api/sessions/s1/tools/read_file?wait=-1", body: "{}" }, 400, "bad_request"],
      [{ path: "/api/sessions/s1/tools/read_file?tools=read_file", body: "{}" }, 200, ""],
      [{ path: "/api/sessions/s%201/tools/read_file", body: "{}" }, 200, ""],
      // Over Fastify's maxParamLength: its router refuses it (frameworkErrors, build-server.ts).
      [{ path: `/api/sessions/${"s".repeat(101)}/tools/read_file`, body: "{}" }, 400, "bad_request", false],
      [{ path: "/api/sessions/s1/tools/read_file/", body: "{}" }, 404, "not_found"],
      [{ method: "PUT", body: "{}" }, 404, "not_found"],
      [{ chunked: true, body: '{"args":{"path":"c"}}' }, 200, ""],
      [{ body: "" }, 200, ""],
    ];
    for (const [request, status, code, hooks = true] of cases) {
      const answer = await both(request);
      expect({ request, status: answer.status, viaFastify: answer.viaFastify }).toEqual({ request, status, viaFastify: hooks });
      if (code) expect((answer.body as { error: { code: string } }).error.code).toBe(code);
    }
  });

  it("gives the tool service what the route gives it", async () => {
    calls.length = 0;
    await send(withFastPath, { body: '{"args":{"path":"x"}}' });
    await send(fastifyOnly, { body: '{"args":{"path":"x"}}' });
    const [fast, reference] = calls;
    expect(fast?.signal).toBeInstanceOf(AbortSignal);
    expect({ ...fast, signal: undefined }).toEqual({ ...reference, signal: undefined });
  });
});
