import http from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { InMemorySchemaPinStore } from "../pinning";
import { startHttpTestMcpServer } from "../testing";
import { McpClientGateway, PrivateAddressError, firstRefusedAddress, guardedFetch, isPublicAddress } from ".";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const loopbackAllowed = (address: string) => address === "127.0.0.1" || address === "::1";

/** A plain HTTP server that records what it received and answers per path. */
async function recordingServer(): Promise<{ url: string; received: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> }> {
  const received: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      received.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      if (request.url === "/empty") return response.writeHead(204).end();
      if (request.url === "/moved") return response.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" }).end();
      response.writeHead(200, { "content-type": "text/plain", "x-answer": "42" });
      response.write("part one, ");
      setTimeout(() => response.end("part two"), 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

describe("which addresses a user's MCP server may have", () => {
  it("refuses loopback, private, link-local, CGNAT, multicast and unique-local addresses, in either IP version", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1"]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2001:4860:4860::8888", "::ffff:8.8.8.8"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
    expect(isPublicAddress("example.com")).toBe(false);
  });

  it("judges names by every address they resolve to; a name that does not resolve is left to the connection", async () => {
    expect(await firstRefusedAddress("127.0.0.1")).toBe("127.0.0.1");
    expect(await firstRefusedAddress("[::1]")).toBe("::1");
    expect(["127.0.0.1", "::1"]).toContain(await firstRefusedAddress("localhost"));
    expect(await firstRefusedAddress("8.8.8.8")).toBeNull();
    expect(await firstRefusedAddress("no-such-host.invalid")).toBeNull();
  });
});

describe("guardedFetch", () => {
  it("does not connect to a refused address, whether written in the URL or found by DNS", async () => {
    const server = await recordingServer();
    const fetchGuarded = guardedFetch();
    await expect(fetchGuarded(`${server.url}/x`)).rejects.toThrow(PrivateAddressError);
    await expect(fetchGuarded(`${server.url}/x`)).rejects.toThrow(/127\.0\.0\.1 is not a public address/);
    const viaName = server.url.replace("127.0.0.1", "localhost");
    await expect(fetchGuarded(`${viaName}/x`, { method: "POST", body: "secret" })).rejects.toThrow(/localhost resolves to (127\.0\.0\.1|::1), which is not a public address/);
    expect(server.received).toEqual([]);
  });

  it("behaves as fetch where it may connect: method, headers, body, status, response headers, a streamed body", async () => {
    const server = await recordingServer();
    const fetchGuarded = guardedFetch(loopbackAllowed);
    const response = await fetchGuarded(new URL(`${server.url.replace("127.0.0.1", "localhost")}/echo`), {
      method: "POST",
      headers: new Headers({ "content-type": "application/json", authorization: "Bearer abc" }),
      body: JSON.stringify({ hello: "world" }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-answer")).toBe("42");
    expect(await response.text()).toBe("part one, part two");
    expect(server.received[0]).toMatchObject({ method: "POST", url: "/echo", body: '{"hello":"world"}', headers: { authorization: "Bearer abc", "content-type": "application/json" } });

    const empty = await fetchGuarded(`${server.url}/empty`, { method: "DELETE" });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    // A redirect is handed back, not followed: it could lead anywhere.
    const moved = await fetchGuarded(`${server.url}/moved`);
    expect(moved.status).toBe(302);
    expect(server.received.map((r) => r.url)).toEqual(["/echo", "/empty", "/moved"]);
  });

  it("carries the MCP SDK's Streamable HTTP client: initialize, list tools and call one", { timeout: 30_000 }, async () => {
    const mcp = await startHttpTestMcpServer({ label: "guarded" });
    cleanups.push(() => mcp.stop());
    const client = new Client({ name: "address-guard-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { fetch: guardedFetch(loopbackAllowed) }));
    cleanups.push(() => client.close());
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("echo");
    const result = await client.callTool({ name: "echo", arguments: { text: "through the guard" } });
    expect(result.content).toEqual([{ type: "text", text: "through the guard" }]);
  });
});

describe("the gateway and user-scoped http servers", () => {
  it("does not reach a user's server on a loopback address unless the runner allows it; global servers are not limited", { timeout: 30_000 }, async () => {
    const mcp = await startHttpTestMcpServer({ label: "internal" });
    cleanups.push(() => mcp.stop());
    const servers = [
      { id: "mine", name: "mine", transport: "http" as const, url: mcp.url, scope: "user" as const, ownerUserId: "1" },
      { id: "ops", name: "ops", transport: "http" as const, url: mcp.url, scope: "global" as const },
    ];
    const scope = { userId: "1", sessionId: "s1" };

    const guarded = new McpClientGateway({ pins: new InMemorySchemaPinStore(), backoff: { initialMs: 20, maxMs: 200 } });
    cleanups.push(() => guarded.close());
    await guarded.setServers(servers);
    const prepared = await guarded.prepare(scope);
    expect(prepared.unavailable).toEqual([expect.objectContaining({ serverId: "mine", message: expect.stringMatching(/127\.0\.0\.1 is not a public address/) })]);
    expect(prepared.tools.some((tool) => tool.name.startsWith("user_1_tool_"))).toBe(false);
    expect(prepared.tools.map((tool) => tool.name)).toContain("echo");

    const allowed = new McpClientGateway({ pins: new InMemorySchemaPinStore(), allowPrivateUserServers: true });
    cleanups.push(() => allowed.close());
    await allowed.setServers(servers);
    expect((await allowed.prepare(scope)).tools.map((tool) => tool.name)).toContain("user_1_tool_echo");
  });
});
