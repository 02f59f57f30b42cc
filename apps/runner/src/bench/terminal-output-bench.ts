// npx tsx apps/runner/src/bench/terminal-output-bench.ts — a terminal's output through the runner that holds it,
// on PostgreSQL with the database log store (testing/two-runners.ts; the second runner idles): the time for 4 MB
// printed in the terminal (`base64` of zeros, a marker after it) to reach an attached browser socket, and a
// keystroke's echo round trip in `cat`. Prints one JSON line per round (BENCH_ROUNDS, default 3), so runs of two
// builds can be alternated and their medians compared (the terminal pump reads past a chunk only once it is
// stored: terminals/terminal-service.ts). Needs BERTH_TEST_POSTGRES_URL, BERTH_TEST_REDIS_URL, the image.
import os from "node:os";
import { io as connect, type Socket } from "socket.io-client";
import { percentile } from "./bench-stats";
import { emitWithAck, type TestRunner } from "../testing/runner-test-kit";
import { startTwoRunners } from "../testing/two-runners";

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 3));
const BULK_BYTES = 4_000_000;
const KEYS = 40;

async function browser(runner: TestRunner, cookie: string) {
  const socket: Socket = connect(runner.url, { extraHeaders: { cookie }, transports: ["websocket"], forceNew: true, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  let text = "";
  let bytes = 0;
  let waiter: { done: () => boolean; resolve: () => void } | null = null;
  socket.on("terminal:output", (event: { offset: number; data: Buffer }, ack: () => void) => {
    if (event.offset === bytes) {
      bytes += event.data.length;
      text = (text + Buffer.from(event.data).toString("latin1")).slice(-4096);
    }
    ack();
    if (waiter?.done()) {
      const { resolve } = waiter;
      waiter = null;
      resolve();
    }
  });
  const until = (done: () => boolean) =>
    done()
      ? Promise.resolve()
      : Promise.race([
          new Promise<void>((resolve) => (waiter = { done, resolve })),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out at byte ${bytes}`)), 60_000).unref()),
        ]);
  return { socket, bytes: () => bytes, tail: () => text, until };
}

async function main(): Promise<void> {
  const two = await startTwoRunners({ runnerIds: { a: `to-a-${process.pid}`, b: `to-b-${process.pid}` } });
  try {
    const sessionId = await two.a.createSession({ autonomy: "trusted" });
    const minted = await two.a.api<{ secret: string }>("POST", "/api/browser-sessions", { userAgent: "terminal-output bench" });
    const client = await browser(two.a, `berth_browser=${minted.body.secret}`);
    const { terminalId } = await emitWithAck<{ terminalId: string }>(client.socket, "terminal:open", { sessionId, cols: 200, rows: 50 });
    await emitWithAck(client.socket, "terminal:attach", { terminalId, offset: 0 });
    const type = (data: string) => client.socket.emit("terminal:input", { terminalId, data }, () => undefined);
    for (let round = 0; round < ROUNDS; round++) {
      const marker = `done-${round}-${process.pid}`;
      const started = performance.now();
      type(`head -c ${(BULK_BYTES * 3) / 4} /dev/zero | base64 -w 100; echo ${marker.replace("-", "''-")}\r`);
      await client.until(() => client.tail().includes(`${marker}\r\n`));
      const bulkMs = performance.now() - started;
      type("stty -echo -icanon; cat\r");
      await new Promise((resolve) => setTimeout(resolve, 500));
      const samples: number[] = [];
      for (let k = 0; k < KEYS; k++) {
        const want = client.bytes() + 1;
        const t = performance.now();
        type("x");
        await client.until(() => client.bytes() >= want);
        samples.push(performance.now() - t);
      }
      type("\x03stty sane\r");
      await new Promise((resolve) => setTimeout(resolve, 500));
      console.log(JSON.stringify({ round, bulkMs: Math.round(bulkMs), bulkMBps: Number((BULK_BYTES / 1e6 / (bulkMs / 1000)).toFixed(2)), echoP50Ms: Number(percentile(samples, 50).toFixed(2)), load: os.loadavg()[0]!.toFixed(2) }));
    }
    client.socket.disconnect();
  } finally {
    await two.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
