import { describe, expect, it } from "vitest";
import {
  checkRequest,
  contentSecurityPolicy,
  hostAllowList,
  isAllowedOrigin,
  pageSecurityHeaders,
  refusalBody,
} from "./request-guard.mjs";

const list = hostAllowList({ allowedHosts: "berth.example.com", ports: [3000, 4000] });

describe("web request guard", () => {
  it("refuses a foreign Host (421), a foreign Origin and a cookie POST without proof of origin (403)", () => {
    expect(checkRequest({ method: "GET", headers: { host: "evil.example.com:3000" } }, list)?.status).toBe(421);
    expect(
      checkRequest({ method: "GET", headers: { host: "127.0.0.1:3000", origin: "http://127.0.0.1:8123" } }, list)
        ?.status,
    ).toBe(403);
    expect(checkRequest({ method: "POST", headers: { host: "127.0.0.1:3000", cookie: "c=1" } }, list)?.status).toBe(
      403,
    );
    expect(
      checkRequest(
        { method: "POST", headers: { host: "127.0.0.1:3000", cookie: "c=1", origin: "http://127.0.0.1:3000" } },
        list,
      ),
    ).toBeNull();
    expect(
      checkRequest(
        { method: "POST", headers: { host: "127.0.0.1:3000", cookie: "c=1", authorization: "Bearer t" } },
        list,
      ),
    ).toBeNull();
    expect(checkRequest({ method: "GET", headers: { host: "berth.example.com" } }, list)).toBeNull();
  });

  it("allows the web and runner origins only", () => {
    expect(isAllowedOrigin("http://localhost:3000", list)).toBe(true);
    expect(isAllowedOrigin("https://berth.example.com", list)).toBe(true);
    expect(isAllowedOrigin("http://localhost:3001", list)).toBe(false);
    expect(isAllowedOrigin("null", list)).toBe(false);
  });

  it("names a bad BERTH_ALLOWED_HOSTS entry", () => {
    expect(() => hostAllowList({ allowedHosts: "ok.example,http://bad/", ports: [3000] })).toThrow(
      /"http:\/\/bad\/" is not a host name/,
    );
  });

  it("answers /mcp in JSON-RPC", () => {
    expect(JSON.parse(refusalBody("/mcp/x", { status: 403, code: "forbidden", message: "m" }))).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "m" },
      id: null,
    });
  });

  it("gives each page a fresh nonce, no framing, no referrer, no sniffing", () => {
    const a = pageSecurityHeaders();
    const b = pageSecurityHeaders();
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.headers["content-security-policy"]).toBe(contentSecurityPolicy(a.nonce));
    expect(a.headers["content-security-policy"]).toContain(`script-src 'self' 'nonce-${a.nonce}'`);
    expect(a.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(a.headers).toMatchObject({
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
    });
  });
});
