// The floor of one HTTP hop, for bench:cluster: a plain node:http reverse proxy in its own process, in front of one
// runner, that does what ForwardToOwner must at the least (the client's headers on with the owner's Host, a small
// body and its answer passed on whole, one kept-alive connection to the owner) and nothing else: no lookup, no
// marker, no checks. Started as `node bare-http-proxy.mjs <owner url>`; prints `listening <port>` when it listens.
import http from "node:http";

const owner = new URL(process.argv[2] ?? "");
const agent = new http.Agent({ keepAlive: true });
const whole = (message, done) => {
  const chunks = [];
  message.on("data", (chunk) => chunks.push(chunk));
  message.on("end", () => done(Buffer.concat(chunks)));
};

const server = http.createServer((req, res) => {
  const headers = { ...req.headers, host: owner.host };
  const upstream = http.request({ hostname: owner.hostname, port: owner.port, path: req.url, method: req.method, headers, agent });
  whole(req, (body) => upstream.end(body));
  upstream.on("response", (answer) => {
    // This connection's own headers stay behind, as ForwardToOwner leaves them.
    const kept = { ...answer.headers };
    delete kept.connection;
    delete kept["keep-alive"];
    whole(answer, (body) => res.writeHead(answer.statusCode ?? 502, kept).end(body));
  });
  upstream.on("error", (error) => res.writeHead(502).end(String(error)));
});
server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
// Exits through process.exit, so that --cpu-prof (bench:cluster with BERTH_CHILD_CPU_PROF_DIR) writes its profile.
process.on("SIGINT", () => process.exit(0));
