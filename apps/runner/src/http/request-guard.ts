import type http from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * Which Host and Origin headers the runner answers. A browser sends the name it resolved in `Host`, so
 * a DNS-rebinding page (evil.example → 127.0.0.1) is refused by name; pages on another port of
 * 127.0.0.1/localhost share the name, so `Origin` must also carry one of our ports.
 */
export interface HostAllowList {
  /** Names answered on our ports: the loopback names and the configured public names. */
  readonly names: ReadonlySet<string>;
  /** Configured public names (a reverse proxy on the default port sends them without a port). */
  readonly publicNames: ReadonlySet<string>;
  /** Exact `name:port` pairs configured in BERTH_ALLOWED_HOSTS. */
  readonly pairs: ReadonlySet<string>;
  /** The web app's and the runner's ports; a function because a test runner listens on port 0. */
  readonly ports: () => readonly number[];
}

export const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"] as const;

/** The allow-list from BERTH_ALLOWED_HOSTS entries (`name` or `name:port`) and our ports. */
export function hostAllowList(opts: {
  allowedHosts: readonly string[];
  ports: () => readonly number[];
}): HostAllowList {
  const names = new Set<string>(LOOPBACK_NAMES);
  const publicNames = new Set<string>();
  const pairs = new Set<string>();
  for (const entry of opts.allowedHosts) {
    const parsed = splitHost(entry);
    if (!parsed) continue;
    if (parsed.port === null) {
      names.add(parsed.name);
      publicNames.add(parsed.name);
    } else {
      pairs.add(`${parsed.name}:${parsed.port}`);
    }
  }
  return { names, publicNames, pairs, ports: opts.ports };
}

/** `name[:port]` → its parts (lower-cased, IPv6 kept in brackets), or null when it is not a host. */
export function splitHost(value: string): { name: string; port: number | null } | null {
  const host = value.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(host);
  if (!match?.[1]) return null;
  const port = match[2] === undefined ? null : Number(match[2]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { name: match[1], port };
}

/** Whether a `Host` header value is ours; `defaultPort` is what a missing port means (80 or 443). */
export function isAllowedHost(value: string | undefined, list: HostAllowList, defaultPort = 80): boolean {
  if (!value) return false;
  const host = splitHost(value);
  if (!host) return false;
  if (host.port !== null && list.pairs.has(`${host.name}:${host.port}`)) return true;
  if (!list.names.has(host.name)) return false;
  if (host.port === null && list.publicNames.has(host.name)) return true;
  return list.ports().includes(host.port ?? defaultPort);
}

/** Whether an `Origin` header is one of ours: http(s) on an allowed host and port. `null` never is. */
export function isAllowedOrigin(value: string, list: HostAllowList): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  // An Origin is scheme://host[:port] and nothing else.
  if (url.origin !== value.toLowerCase().replace(/\/$/, "")) return false;
  return isAllowedHost(url.host, list, url.protocol === "https:" ? 443 : 80);
}

export type Refusal = { status: 421 | 403; code: "misdirected_request" | "forbidden"; message: string };

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

type GuardedHeaders = http.IncomingHttpHeaders;

function header(headers: GuardedHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The checks every request passes before anything else: Host on the allow-list; Origin, when sent, one
 * of ours; and a state-changing request that rides on a cookie (the browser's ambient credential, with no
 * Authorization header) proven same-origin by Origin or Sec-Fetch-Site, so a cross-site form or bodyless
 * POST cannot act with it.
 */
export function checkRequest(
  request: { method?: string | undefined; headers: GuardedHeaders },
  list: HostAllowList,
): Refusal | null {
  const host = header(request.headers, "host");
  if (!isAllowedHost(host, list)) {
    return {
      status: 421,
      code: "misdirected_request",
      message: `Host ${JSON.stringify(host ?? "")} is not one this server answers (allowed: ${describe(list)}); add a public name to BERTH_ALLOWED_HOSTS`,
    };
  }
  const origin = header(request.headers, "origin");
  if (origin !== undefined && !isAllowedOrigin(origin, list)) {
    return {
      status: 403,
      code: "forbidden",
      message: `Origin ${JSON.stringify(origin)} is not allowed (allowed: ${describe(list)})`,
    };
  }
  const method = (request.method ?? "GET").toUpperCase();
  // A request with an Authorization header is not riding on the cookie (a page cannot add that header
  // across origins without a preflight, which nothing here answers).
  const ambient =
    header(request.headers, "cookie") !== undefined && header(request.headers, "authorization") === undefined;
  if (!SAFE_METHODS.has(method) && ambient && origin === undefined) {
    const site = header(request.headers, "sec-fetch-site");
    if (site !== "same-origin") {
      return {
        status: 403,
        code: "forbidden",
        message: `A ${method} with a cookie needs an Origin header of this site (Sec-Fetch-Site was ${JSON.stringify(site ?? "")})`,
      };
    }
  }
  return null;
}

function describe(list: HostAllowList): string {
  const ports = list.ports().join("|");
  return [
    ...[...list.names].map((name) => (list.publicNames.has(name) ? name : `${name}:${ports}`)),
    ...list.pairs,
  ].join(", ");
}

/** The refusal as the body its route speaks: JSON-RPC on /mcp (id null, as the MCP SDK does), else `{error}`. */
export function refusalBody(url: string | undefined, refusal: Refusal): unknown {
  if (/^\/mcp(\/|\?|$)/.test(url ?? ""))
    return { jsonrpc: "2.0", error: { code: -32000, message: refusal.message }, id: null };
  return { error: { code: refusal.code, message: refusal.message } };
}

/** Fastify onRequest hook: refuses before authentication, so a refused request never touches a token. */
export function requestGuardHook(list: HostAllowList) {
  // Callback style: every request passes here, and a check with nothing to wait for needs no promise.
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    const refusal = checkRequest(request.raw, list);
    if (!refusal) return done();
    // Answering without calling done ends the request here (Fastify's rule for a callback hook).
    void reply
      .status(refusal.status)
      .header("content-type", "application/json; charset=utf-8")
      .send(refusalBody(request.raw.url, refusal));
  };
}

/**
 * socket.io `allowRequest`: runs on the polling handshake and on the WebSocket upgrade alike (the `cors`
 * option covers neither an upgrade nor a page that ignores CORS), so a foreign page's socket gets nothing.
 */
export function allowSocketRequest(list: HostAllowList) {
  return (
    request: http.IncomingMessage,
    callback: (error: string | null | undefined, success: boolean) => void,
  ): void => {
    const refusal = checkRequest({ method: "GET", headers: request.headers }, list);
    callback(refusal ? refusal.message : null, refusal === null);
  };
}
