// A worker thread of the stream bench (stream-bench.ts): a share of the live clients, each a real socket.io client
// over its own WebSocket, following one run's stdout from offset 0 and hashing every byte it gets (sha256, native)
// while refusing a gap or a duplicate. Plain JavaScript: the bench starts this thread without its node options, so
// without tsx's loader (stream-bench.ts clientThread says why).
//
// workerData: {base, token, runId, bytes, clients, dropAt, encoding, pipe}. With `dropAt`, the first client disconnects once it
// has that many bytes and resumes from its offset on a new connection, into the same hash. With `pipe` ({url, total, file, chunk}), the
// clients are bare ws clients of the bench's ceiling (stream-pipe-server.mjs) instead, hashing every message the same way.
// Messages to the bench: {type: "done", clients: [{digest, firstByteAt, resumedAt, events}], cpu, gcMs} or {type: "error", message}:
// `events`, the output events (or pipe messages) a client got; `cpu`, the CPU seconds this thread used; `gcMs`, its GC pauses.
import crypto from "node:crypto";
import fs from "node:fs";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { parentPort, workerData } from "node:worker_threads";
import { io as connect } from "socket.io-client";
import WebSocket from "ws";

const { base, token, runId, bytes, clients, dropAt, encoding, pipe } = workerData;
/** The time origin of the whole process, so the bench can compare times taken in different threads. */
const now = () => performance.timeOrigin + performance.now();

/** CPU seconds this thread has used (utime + stime of /proc/thread-self/stat, fields 14 and 15, in 1/100 s). */
const threadCpu = () => {
  const fields = fs.readFileSync("/proc/thread-self/stat", "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const cpuBefore = threadCpu();
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ["gc"] });

/** The event's bytes: the runner sends them as binary to a client that asks (`encoding: "binary"`), as text otherwise. */
const bytesOf = (data) => (typeof data === "string" ? Buffer.from(data) : Buffer.isBuffer(data) ? data : Buffer.from(data));

function follow(watcher, stopAt) {
  return new Promise((resolve, reject) => {
    const socket = connect(base, { auth: { token }, transports: ["websocket"], forceNew: true });
    let stopped = false;
    socket.on("run:output", (event) => {
      if (stopped || event.stream !== "stdout") return;
      if (event.offset !== watcher.received) {
        stopped = true;
        socket.disconnect();
        return reject(new Error(`gap or duplicate: got offset ${event.offset}, expected ${watcher.received}`));
      }
      const chunk = bytesOf(event.data);
      watcher.events++;
      watcher.firstByteAt ??= now();
      watcher.hash.update(chunk);
      watcher.received += chunk.length;
      if (watcher.received >= stopAt) {
        stopped = true;
        socket.disconnect();
        resolve();
      }
    });
    // On a loaded machine a connection may time out or drop: socket.io retries, and each (re)connect subscribes
    // from the last byte this client has, as the IDE does.
    socket.on("connect", () => socket.emit("run:subscribe", { runId, offset: { stdout: watcher.received, stderr: 0 }, encoding }, () => undefined));
  });
}

/** A bare ws client of the ceiling: every binary message is the next bytes, into the hash. */
function pipeFollow(watcher) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${pipe.url}/?clients=${pipe.total}&file=${encodeURIComponent(pipe.file)}&chunk=${pipe.chunk}`, { perMessageDeflate: false });
    socket.on("message", (chunk) => {
      watcher.events++;
      watcher.firstByteAt ??= now();
      watcher.hash.update(chunk);
      watcher.received += chunk.length;
      if (watcher.received >= bytes) {
        socket.close();
        resolve();
      }
    });
    socket.on("error", reject);
  });
}

async function client(index) {
  const watcher = { hash: crypto.createHash("sha256"), received: 0, firstByteAt: undefined, events: 0 };
  let resumedAt = 0;
  if (pipe) {
    await pipeFollow(watcher);
    return { digest: watcher.hash.digest("hex"), firstByteAt: watcher.firstByteAt, resumedAt, events: watcher.events };
  }
  if (index === 0 && dropAt) {
    await follow(watcher, dropAt);
    await new Promise((resolve) => setTimeout(resolve, 500));
    resumedAt = watcher.received;
  }
  await follow(watcher, bytes);
  return { digest: watcher.hash.digest("hex"), firstByteAt: watcher.firstByteAt, resumedAt, events: watcher.events };
}

Promise.all(Array.from({ length: clients }, (_, i) => client(i))).then(
  (results) => parentPort.postMessage({ type: "done", clients: results, cpu: threadCpu() - cpuBefore, gcMs }),
  (error) => parentPort.postMessage({ type: "error", message: String(error?.message ?? error) }),
);
