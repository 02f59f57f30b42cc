// The stream bench's ceiling (stream-bench.ts): a bare `ws` server (the runner's own ws, perMessageDeflate off) in
// its own process, broadcasting the same bytes a bench run prints, in the agent's chunk size, to bare ws clients in
// the same worker threads as the socket.io clients (stream-bench-clients.mjs, transport "ws"). No socket.io, no log
// file, no run: what moving these bytes over loopback WebSockets costs on this machine, "the speed of the pipe".
//
// argv: port. A round: the clients connect to /?clients=N&file=F&chunk=C; once N are connected the server sends the
// file's bytes (a bench run's stored stdout) to each in chunks of C bytes, every chunk to every client, pausing while any client has more than a few chunks unflushed (so
// its memory stays bounded, as the runner's does), and posts {type: "started", at} on the IPC channel.
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { setImmediate } from "node:timers";
import { WebSocketServer } from "ws";

const port = Number(process.argv[2]);
/** Chunks a client may have unflushed before the broadcast waits for it. */
const MAX_UNFLUSHED = 16;
const now = () => performance.timeOrigin + performance.now();

/** Every chunk is a view of the file read once, as every follower of a live chunk shares one Buffer. */
function broadcast(sockets, file, chunkSize) {
  const bytes = file.length;
  const unflushed = new Map(sockets.map((socket) => [socket, 0]));
  let sent = 0;
  let waiting = false;
  const pump = () => {
    waiting = false;
    while (sent < bytes) {
      if ([...unflushed.values()].some((n) => n >= MAX_UNFLUSHED)) {
        waiting = true;
        return;
      }
      const data = file.subarray(sent, Math.min(bytes, sent + chunkSize));
      sent += data.length;
      for (const socket of sockets) {
        unflushed.set(socket, unflushed.get(socket) + 1);
        socket.send(data, { binary: true }, () => {
          unflushed.set(socket, unflushed.get(socket) - 1);
          if (waiting && unflushed.get(socket) < MAX_UNFLUSHED / 2) setImmediate(pump);
        });
      }
    }
  };
  process.send?.({ type: "started", at: now() });
  pump();
}

const server = new WebSocketServer({ host: "127.0.0.1", port, perMessageDeflate: false });
let round = [];
server.on("connection", (socket, request) => {
  const query = new URL(request.url ?? "/", "http://127.0.0.1").searchParams;
  round.push(socket);
  if (round.length < Number(query.get("clients"))) return;
  const sockets = round;
  round = [];
  broadcast(sockets, fs.readFileSync(query.get("file")), Number(query.get("chunk")));
});
server.on("listening", () => process.send?.({ type: "listening" }));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
