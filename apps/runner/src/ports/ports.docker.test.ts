import crypto from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";
import { WS_ECHO_SERVER as WS_ECHO } from "../testing/ws-echo-server";
import { until } from "../testing/until";

let kit: TestRunner;
let sessionId: string;

const preview = (
  port: number | string,
  rest = "/",
  headers: Record<string, string> = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
) => fetch(`${kit.url}/sessions/${sessionId}/ports/${port}${rest}`, { headers, redirect: "manual" });


beforeAll(async () => {
  kit = await startTestRunner();
  sessionId = await kit.createSession({ autonomy: "trusted" });
  for (const [path, content] of [
    ["hello-port.txt", "hi"],
    ["ws-echo.js", WS_ECHO],
  ]) {
    const written = await kit.tool(sessionId, "write_file", { path, content });
    expect(written.status).toBe(200);
  }
  for (const command of ["python3 -m http.server 8000 --bind 0.0.0.0", "node ws-echo.js"]) {
    const started = await kit.tool(sessionId, "bash", { action: "start", command });
    expect(started.status).toBe(200);
  }
  await until(async () => (await preview(8000)).status === 200, "python's http.server on 8000");
  await until(async () => (await preview(8001)).status === 200, "the echo server on 8001");
}, 120_000);

afterAll(async () => {
  await kit?.close();
});

describe("port previews through the agent (real runner, real container, no network in it)", () => {
  it("serves python's directory listing from 127.0.0.1:8000 inside the container, and a bare port path redirects to its folder", async () => {
    const page = await preview(8000);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain("Directory listing for /");
    expect(html).toContain("hello-port.txt");
    const file = await preview(8000, "/hello-port.txt?x=1");
    expect(await file.text()).toBe("hi");
    const bare = await preview(8000, "");
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe(`/sessions/${sessionId}/ports/8000/`);
  });

  it("lists what listens in the container (python on 0.0.0.0:8000, node on 127.0.0.1:8001) for the owner only", async () => {
    const listed = await kit.api<{ ports: { port: number; address: string }[] }>(
      "GET",
      `/api/sessions/${sessionId}/ports`,
    );
    expect(listed.status).toBe(200);
    expect(listed.body.ports).toEqual(
      expect.arrayContaining([
        { port: 8000, address: "0.0.0.0" },
        { port: 8001, address: "127.0.0.1" },
      ]),
    );
    const user = await kit.api<{ id: string }>("POST", "/api/users", { name: "ports-lister", role: "developer" });
    const token = await kit.api<{ token: string }>("POST", "/api/tokens", { userId: user.body.id });
    expect((await kit.api("GET", `/api/sessions/${sessionId}/ports`, undefined, token.body.token)).status).toBe(404);
  });

  it("relays a WebSocket both ways after the upgrade, without passing the caller's cookie or token in", async () => {
    const socket = net.connect(kit.runner.port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    const key = crypto.randomBytes(16).toString("base64");
    socket.write(
      [
        `GET /sessions/${sessionId}/ports/8001/ws HTTP/1.1`,
        `Host: 127.0.0.1:${kit.runner.port}`,
        `Authorization: Bearer ${TEST_ADMIN_TOKEN}`,
        "Cookie: other=1",
        "Upgrade: websocket",
        "Connection: Upgrade",
        `Sec-WebSocket-Key: ${key}`,
        "Sec-WebSocket-Version: 13",
        "",
        "",
      ].join("\r\n"),
    );
    let received = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    await until(async () => received.includes("\r\n\r\n"), "the 101 handshake", 10_000);
    const [head = "", rest = ""] = received.toString("latin1").split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 101 /);
    const accept = crypto.createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
    expect(head).toContain(`Sec-WebSocket-Accept: ${accept}`);
    expect(head).toContain("X-Saw-Cookie: no");
    expect(rest).toBe("");
    received = Buffer.alloc(0);
    const mask = crypto.randomBytes(4);
    const payload = Buffer.from("hello port");
    socket.write(
      Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, payload.map((b, i) => b ^ mask[i % 4]!)]),
    );
    await until(async () => received.length >= 2 + "echo: hello port".length, "the echoed frame", 10_000);
    expect(received[0]).toBe(0x81);
    expect(received.subarray(2).toString()).toBe("echo: hello port");
    socket.destroy();
  });

  it("closes an upgrade on a path nobody serves, instead of leaving it open (socket.io no longer sweeps them)", async () => {
    const socket = net.connect(kit.runner.port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    let received = 0;
    socket.on("data", (chunk: Buffer) => (received += chunk.length));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.write(
      `GET /nobody-here HTTP/1.1\r\nHost: 127.0.0.1:${kit.runner.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`,
    );
    await closed;
    expect(received).toBe(0);
  });

  it("refuses an anonymous request and another user's token with 404, as for a session that does not exist", async () => {
    const anonymous = await preview(8000, "/", {});
    expect(anonymous.status).toBe(404);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe("not_found");
    const user = await kit.api<{ id: string }>("POST", "/api/users", { name: "ports-other-dev", role: "developer" });
    const token = await kit.api<{ token: string }>("POST", "/api/tokens", { userId: user.body.id });
    const other = await preview(8000, "/", { authorization: `Bearer ${token.body.token}` });
    expect(other.status).toBe(404);
    const body = (await other.json()) as { error: { code: string; message: string } };
    expect(body.error).toEqual({ code: "not_found", message: `Session not found: ${sessionId}` });
    const operator = await kit.api<{ id: string }>("POST", "/api/users", { name: "ports-operator", role: "operator" });
    const operatorToken = await kit.api<{ token: string }>("POST", "/api/tokens", { userId: operator.body.id });
    expect((await preview(8000, "/", { authorization: `Bearer ${operatorToken.body.token}` })).status).toBe(404);
  });

  it("answers 502 naming the port when nothing listens, and 400 naming the field for a port out of range", async () => {
    const nothing = await preview(8999);
    expect(nothing.status).toBe(502);
    const body = (await nothing.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("bad_gateway");
    expect(body.error.message).toContain("Nothing listens on port 8999");
    expect(body.error.message).toContain("ECONNREFUSED");
    for (const bad of ["0", "65536", "http"]) {
      const refused = await preview(bad);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /^port: must be a whole number from 1 to 65535/,
      );
    }
  });
});
