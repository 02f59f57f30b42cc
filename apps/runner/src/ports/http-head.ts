/** Request headers not passed to the server inside: Berth's credentials and the hop-by-hop ones we set ourselves. */
const DROPPED_REQUEST = new Set([
  "cookie",
  "authorization",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "content-length",
  "host",
  "te",
  "trailer",
]);
/** Upgrade requests keep their Connection/Upgrade headers: the server inside answers the handshake. */
const DROPPED_UPGRADE_REQUEST = new Set(["cookie", "authorization", "host", "content-length"]);

export const HEAD_MAX_BYTES = 64 * 1024;

/**
 * The HTTP/1.1 request head the server inside receives: the path below the /sessions/<id>/ports/<port>
 * prefix, the client's headers minus cookies and authorization, Host as the server sees itself, and
 * `Connection: close` (one request per stream) unless it is a WebSocket upgrade.
 */
export function requestHead(opts: {
  method: string;
  path: string;
  rawHeaders: string[];
  port: number;
  bodyBytes: number;
  upgrade: boolean;
}): Buffer {
  const dropped = opts.upgrade ? DROPPED_UPGRADE_REQUEST : DROPPED_REQUEST;
  const lines = [`${opts.method} ${opts.path} HTTP/1.1`, `Host: localhost:${opts.port}`];
  for (let i = 0; i + 1 < opts.rawHeaders.length; i += 2) {
    const name = opts.rawHeaders[i]!;
    if (!dropped.has(name.toLowerCase())) lines.push(`${name}: ${opts.rawHeaders[i + 1]!}`);
  }
  if (!opts.upgrade) {
    lines.push("Connection: close");
    if (opts.bodyBytes > 0 || !["GET", "HEAD", "OPTIONS", "DELETE"].includes(opts.method))
      lines.push(`Content-Length: ${opts.bodyBytes}`);
  }
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
}

/**
 * The server's response head as the browser gets it: no Set-Cookie (a page inside must not set cookies
 * on the web origin), a Location on this server rewritten under the prefix, and `Connection: close`
 * (the stream ends with the response) unless it switched protocols.
 */
export function responseHead(head: string, prefix: string): Buffer {
  const [status = "", ...headers] = head.split("\r\n");
  const switching = / 101 /.test(`${status} `);
  const kept: string[] = [status];
  for (const line of headers) {
    const name = line.slice(0, line.indexOf(":")).trim().toLowerCase();
    if (name === "set-cookie") continue;
    if (!switching && (name === "connection" || name === "keep-alive")) continue;
    if (name === "location") {
      const value = line.slice(line.indexOf(":") + 1).trim();
      kept.push(value.startsWith("/") && !value.startsWith("//") ? `Location: ${prefix}${value}` : line);
      continue;
    }
    kept.push(line);
  }
  if (!switching) kept.push("Connection: close");
  return Buffer.from(`${kept.join("\r\n")}\r\n\r\n`, "latin1");
}

/** Splits bytes at the end of an HTTP head; null while the head is incomplete. */
export function splitHead(bytes: Buffer): { head: string; rest: Buffer } | null {
  const end = bytes.indexOf("\r\n\r\n");
  if (end === -1) return null;
  return { head: bytes.subarray(0, end).toString("latin1"), rest: bytes.subarray(end + 4) };
}
