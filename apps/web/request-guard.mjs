// The web app's half of the runner's request guard (apps/runner/src/http/request-guard.ts, the same rules
// in plain JS because server.mjs runs without a build step): which Host and Origin headers this server
// answers, and the security headers of the pages it serves.
import crypto from "node:crypto";

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** `name[:port]` → its parts (lower-cased, IPv6 kept in brackets), or null when it is not a host. */
export function splitHost(value) {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(String(value).trim().toLowerCase());
  if (!match) return null;
  const port = match[2] === undefined ? null : Number(match[2]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { name: match[1], port };
}

/**
 * The allow-list from BERTH_ALLOWED_HOSTS (comma-separated `name` or `name:port`) and our ports; throws
 * naming the bad entry, so server.mjs stops at start instead of answering every Host.
 */
export function hostAllowList({ allowedHosts = "", ports }) {
  const names = new Set(LOOPBACK_NAMES);
  const publicNames = new Set();
  const pairs = new Set();
  for (const entry of allowedHosts
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const parsed = splitHost(entry);
    if (!parsed)
      throw new Error(
        `BERTH_ALLOWED_HOSTS=${JSON.stringify(allowedHosts)}: ${JSON.stringify(entry)} is not a host name (name or name:port)`,
      );
    if (parsed.port === null) {
      names.add(parsed.name);
      publicNames.add(parsed.name);
    } else pairs.add(`${parsed.name}:${parsed.port}`);
  }
  return { names, publicNames, pairs, ports };
}

export function isAllowedHost(value, list, defaultPort = 80) {
  if (!value) return false;
  const host = splitHost(value);
  if (!host) return false;
  if (host.port !== null && list.pairs.has(`${host.name}:${host.port}`)) return true;
  if (!list.names.has(host.name)) return false;
  if (host.port === null && list.publicNames.has(host.name)) return true;
  return list.ports.includes(host.port ?? defaultPort);
}

export function isAllowedOrigin(value, list) {
  let url;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (url.origin !== value.toLowerCase().replace(/\/$/, "")) return false;
  return isAllowedHost(url.host, list, url.protocol === "https:" ? 443 : 80);
}

const first = (value) => (Array.isArray(value) ? value[0] : value);

/**
 * Host on the allow-list (DNS rebinding); Origin, when sent, ours (a page on another port); and a
 * state-changing request riding on a cookie proven same-origin. Returns `{status, code, message}` or null.
 */
export function checkRequest(req, list) {
  const host = first(req.headers.host);
  if (!isAllowedHost(host, list)) {
    return {
      status: 421,
      code: "misdirected_request",
      message: `Host ${JSON.stringify(host ?? "")} is not one this server answers; add a public name to BERTH_ALLOWED_HOSTS`,
    };
  }
  const origin = first(req.headers.origin);
  if (origin !== undefined && !isAllowedOrigin(origin, list)) {
    return { status: 403, code: "forbidden", message: `Origin ${JSON.stringify(origin)} is not allowed` };
  }
  const method = (req.method ?? "GET").toUpperCase();
  // A request with an Authorization header is not riding on the cookie (a page cannot add that header
  // across origins without a preflight, which nothing here answers).
  const ambient = first(req.headers.cookie) && !first(req.headers.authorization);
  if (
    !SAFE_METHODS.has(method) &&
    ambient &&
    origin === undefined &&
    first(req.headers["sec-fetch-site"]) !== "same-origin"
  ) {
    return { status: 403, code: "forbidden", message: `A ${method} with a cookie needs an Origin header of this site` };
  }
  return null;
}

/** The refusal in the shape of the path: JSON-RPC on /mcp (id null), `{error}` elsewhere. */
export function refusalBody(url, refusal) {
  if (/^\/mcp(\/|\?|$)/.test(url ?? ""))
    return JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: refusal.message }, id: null });
  return JSON.stringify({ error: { code: refusal.code, message: refusal.message } });
}

/**
 * The page's Content-Security-Policy. Next puts the nonce on its inline hydration scripts when it finds
 * it in the request's CSP header (server.mjs sets both); the editor, its workers and fonts are ours
 * ('self'); Monaco and xterm set inline styles, hence style-src 'unsafe-inline' (styles cannot run code).
 */
export function contentSecurityPolicy(nonce) {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");
}

/** Headers for every page this server renders: no framing, no referrer, no sniffing, the CSP. */
export function pageSecurityHeaders() {
  const nonce = crypto.randomBytes(16).toString("base64");
  return {
    nonce,
    headers: {
      "content-security-policy": contentSecurityPolicy(nonce),
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
    },
  };
}
