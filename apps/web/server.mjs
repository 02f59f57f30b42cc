// Serves the built Next.js app and proxies runner paths (HTTP and websocket upgrades) to the runner,
// so the page has one origin: no CORS, and the httpOnly token cookie reaches the runner as is.
import http from "node:http";
import net from "node:net";
import next from "next";
import { createStaticAssets } from "./static-assets.mjs";
import { checkRequest, hostAllowList, pageSecurityHeaders, refusalBody } from "./request-guard.mjs";
import { deferPageScripts } from "./defer-page-scripts.mjs";

const host = process.env.BERTH_HOST || "127.0.0.1";
const port = Number(process.env.BERTH_WEB_PORT || 3000);
const runner = new URL(process.env.BERTH_RUNNER_URL || `http://127.0.0.1:${process.env.BERTH_RUNNER_PORT || 4000}`);
let hosts;
try {
  hosts = hostAllowList({ allowedHosts: process.env.BERTH_ALLOWED_HOSTS ?? "", ports: [port, Number(runner.port || 80)] });
} catch (error) {
  process.stderr.write(`berth-web: bad configuration: ${error.message}\n`);
  process.exit(1);
}
const PROXIED = /^\/(api|socket\.io|mcp|healthz|metrics)(\/|\?|$)/;
// Port previews: a server inside a session's container, reached through the runner (docs/api.md "Ports").
const PORTS = /^\/sessions\/[^/?]+\/ports(\/|\?|$)/;

// The IDE page: its own scripts run after its early editor (defer-page-scripts.mjs).
const IDE_PAGE = /^\/sessions\/[^/?]+(\?|$)/;

// Routes the web app answers itself even under /api (sign-in sets the cookie on this origin).
const OWN = /^\/api\/session(\/|\?|$)/;

function proxyHttp(req, res) {
  const upstream = http.request(
    { host: runner.hostname, port: runner.port, method: req.method, path: req.url, headers: { ...req.headers, host: runner.host } },
    (response) => {
      res.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(res);
    },
  );
  upstream.on("error", () => {
    if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { code: "runner_unavailable", message: `The runner at ${runner.origin} does not answer` } }));
  });
  req.pipe(upstream);
}

function proxyUpgrade(req, socket, head) {
  // Keystrokes and their echoes are small writes: without TCP_NODELAY the second of two (socket.io sends a binary
  // event as a header frame and an attachment) waits for the peer's delayed ACK, ~40 ms.
  socket.setNoDelay(true);
  const upstream = net.connect({ port: Number(runner.port), host: runner.hostname, noDelay: true }, () => {
    const headers = Object.entries({ ...req.headers, host: runner.host }).map(([k, v]) => `${k}: ${v}`);
    upstream.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n`);
    if (head?.length) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  const close = () => {
    upstream.destroy();
    socket.destroy();
  };
  upstream.on("error", close);
  socket.on("error", close);
}

const dir = new URL(".", import.meta.url).pathname;
const app = next({ dev: false, dir, hostname: host, port });
await app.prepare();
const handle = app.getRequestHandler();
const assets = createStaticAssets(`${dir}.next/static`);

const server = http.createServer((req, res) => {
  // Host, Origin and cross-site state changes are checked here for every request, pages included (the
  // runner checks the proxied ones again).
  const refusal = checkRequest(req, hosts);
  if (refusal) {
    res.writeHead(refusal.status, { "content-type": "application/json; charset=utf-8" });
    return res.end(refusalBody(req.url, refusal));
  }
  res.setHeader("x-content-type-options", "nosniff");
  if ((PROXIED.test(req.url ?? "") && !OWN.test(req.url ?? "")) || PORTS.test(req.url ?? "")) return proxyHttp(req, res);
  if (assets.handle(req, res)) return;
  // Next reads the nonce from the request's CSP header and puts it on its inline scripts.
  const { headers } = pageSecurityHeaders();
  req.headers["content-security-policy"] = headers["content-security-policy"];
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (req.method === "GET" && IDE_PAGE.test(req.url ?? "") && !req.headers.rsc) deferPageScripts(req, res);
  return handle(req, res);
});
server.on("upgrade", (req, socket, head) => {
  // A foreign page's WebSocket carries the user's cookie: refused before it reaches the runner.
  const refusal = checkRequest({ method: "GET", headers: req.headers }, hosts);
  if (refusal) {
    const body = refusalBody(req.url, refusal);
    socket.end(`HTTP/1.1 ${refusal.status} ${refusal.status === 421 ? "Misdirected Request" : "Forbidden"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    return;
  }
  if (PROXIED.test(req.url ?? "") || PORTS.test(req.url ?? "")) return proxyUpgrade(req, socket, head);
  socket.destroy();
});
server.on("error", (error) => {
  if (error.code === "EADDRINUSE") {
    process.stderr.write(`berth-web: port ${port} on ${host} is in use: stop what holds it or set BERTH_WEB_PORT\n`);
    process.exit(1);
  }
  throw error;
});
server.listen(port, host, () => {
  process.stdout.write(`berth-web ready on http://${host}:${port} (runner ${runner.origin})\n`);
  // Compress the assets now rather than on the first visitor's page load.
  assets.warm().catch((error) => process.stderr.write(`berth-web: could not pre-compress assets: ${error.message}\n`));
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close();
    void app.close?.();
    process.exit(0);
  });
}
