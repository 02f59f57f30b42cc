import { describe, expect, it } from "vitest";
import { checkRequest, hostAllowList, isAllowedHost, isAllowedOrigin, refusalBody, splitHost } from "./request-guard";

const list = hostAllowList({ allowedHosts: ["berth.example.com", "10.0.0.5:8443"], ports: () => [3000, 4000] });

describe("isAllowedHost", () => {
  it("answers the loopback names on our ports", () => {
    for (const host of ["127.0.0.1:3000", "localhost:4000", "[::1]:3000", "LOCALHOST:3000"])
      expect(isAllowedHost(host, list), host).toBe(true);
  });

  it("refuses other names (DNS rebinding) and other ports", () => {
    for (const host of [
      "evil.example.com:3000",
      "127.0.0.1:8080",
      "localhost",
      "127.0.0.2:3000",
      "localhost.:3000",
      "",
      "a b",
      "[::1]",
    ]) {
      expect(isAllowedHost(host, list), host).toBe(false);
    }
    expect(isAllowedHost(undefined, list)).toBe(false);
  });

  it("answers a configured public name without a port (reverse proxy) or on our ports, and exact name:port pairs", () => {
    expect(isAllowedHost("berth.example.com", list)).toBe(true);
    expect(isAllowedHost("berth.example.com:3000", list)).toBe(true);
    expect(isAllowedHost("berth.example.com:9999", list)).toBe(false);
    expect(isAllowedHost("10.0.0.5:8443", list)).toBe(true);
    expect(isAllowedHost("10.0.0.5:3000", list)).toBe(false);
  });

  it("reads the ports when asked, so a runner on port 0 can say its port after listening", () => {
    let port = 0;
    const late = hostAllowList({ allowedHosts: [], ports: () => [port] });
    expect(isAllowedHost("127.0.0.1:41234", late)).toBe(false);
    port = 41234;
    expect(isAllowedHost("127.0.0.1:41234", late)).toBe(true);
  });
});

describe("isAllowedOrigin", () => {
  it("allows the web and runner origins and refuses another port, another name, null and paths", () => {
    expect(isAllowedOrigin("http://127.0.0.1:3000", list)).toBe(true);
    expect(isAllowedOrigin("http://localhost:4000", list)).toBe(true);
    expect(isAllowedOrigin("https://berth.example.com", list)).toBe(true);
    for (const origin of [
      "http://127.0.0.1:8080",
      "http://evil.example.com",
      "null",
      "http://127.0.0.1:3000/x",
      "file://",
      "ws://127.0.0.1:3000",
      "http://127.0.0.1",
    ]) {
      expect(isAllowedOrigin(origin, list), origin).toBe(false);
    }
  });
});

describe("checkRequest", () => {
  const ours = { host: "127.0.0.1:3000" };

  it("refuses a foreign Host with 421 naming it and the setting", () => {
    const refusal = checkRequest({ method: "GET", headers: { host: "evil.example.com:3000" } }, list);
    expect(refusal?.status).toBe(421);
    expect(refusal?.message).toMatch(/"evil.example.com:3000".*BERTH_ALLOWED_HOSTS/);
  });

  it("refuses a foreign Origin on any method", () => {
    const refusal = checkRequest({ method: "GET", headers: { ...ours, origin: "http://127.0.0.1:8080" } }, list);
    expect(refusal).toMatchObject({ status: 403, code: "forbidden" });
    expect(refusal?.message).toContain("http://127.0.0.1:8080");
  });

  it("refuses a state-changing request with a cookie and no proof of origin, allows it with one", () => {
    const cookie = { ...ours, cookie: "berth_token=x" };
    expect(checkRequest({ method: "POST", headers: cookie }, list)?.status).toBe(403);
    expect(
      checkRequest({ method: "DELETE", headers: { ...cookie, "sec-fetch-site": "same-site" } }, list)?.status,
    ).toBe(403);
    expect(checkRequest({ method: "POST", headers: { ...cookie, "sec-fetch-site": "same-origin" } }, list)).toBeNull();
    expect(checkRequest({ method: "POST", headers: { ...cookie, origin: "http://127.0.0.1:3000" } }, list)).toBeNull();
    // No cookie: a bearer-token client (curl, the SDK) has no ambient credential to abuse.
    expect(checkRequest({ method: "POST", headers: ours }, list)).toBeNull();
    expect(checkRequest({ method: "GET", headers: cookie }, list)).toBeNull();
    // A bearer token beside the cookie: the caller holds the token, a foreign page cannot add the header.
    expect(checkRequest({ method: "POST", headers: { ...cookie, authorization: "Bearer x" } }, list)).toBeNull();
  });
});

describe("refusalBody", () => {
  it("speaks JSON-RPC on /mcp and {error} elsewhere", () => {
    const refusal = { status: 403 as const, code: "forbidden" as const, message: "no" };
    expect(refusalBody("/mcp/ses_1", refusal)).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "no" },
      id: null,
    });
    expect(refusalBody("/api/sessions", refusal)).toEqual({ error: { code: "forbidden", message: "no" } });
  });
});

describe("splitHost", () => {
  it("keeps IPv6 in brackets and refuses bad ports", () => {
    expect(splitHost("[::1]:3000")).toEqual({ name: "[::1]", port: 3000 });
    expect(splitHost("example.com:0")).toBeNull();
    expect(splitHost("example.com:70000")).toBeNull();
    expect(splitHost("::1")).toBeNull();
  });
});
