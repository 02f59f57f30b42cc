// npm run bench terminal-forward — a keystroke's echo round trip in a terminal through the runner that does not
// hold the session (its socket events relayed to the owner, the output relayed back: cluster/owner-socket-relay.ts)
// against through the owner itself, in the same run: two in-process runners on one PostgreSQL database and one
// Redis (testing/two-runners.ts), one session, one terminal running `cat`, a browser socket on each runner attached
// to it. Each keystroke is timed from terminal:input until the typing socket gets its echo; alternated rounds, the
// median of each side's p50s (docs/benchmarks.md). Needs BERTH_TEST_POSTGRES_URL, BERTH_TEST_REDIS_URL, the image.
//
//   BENCH_ROUNDS rounds of each side (default 7); BENCH_KEYS keystrokes per round (default 40)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io as connect, type Socket } from "socket.io-client";
import { createDatabase, createRepositories } from "@berth/db";
import { percentile } from "./bench-stats";
import { emitWithAck, type TestRunner } from "../testing/runner-test-kit";
import { setSessionOwner } from "../testing/set-session-owner";
import { startTwoRunners } from "../testing/two-runners";

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 7));
const KEYS = Math.max(1, Number(process.env.BENCH_KEYS || 40));
const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const loadavg = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");

/** A signed-in browser's socket on `runner`, following one terminal: the bytes it has, and a wait for more. */
async function follower(runner: TestRunner, cookie: string) {
  const socket: Socket = connect(runner.url, { extraHeaders: { cookie }, transports: ["websocket"], forceNew: true, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  let bytes = 0;
  let waiter: { until: number; resolve: () => void } | null = null;
  socket.on("terminal:output", (event: { offset: number; data: Buffer }, ack: () => void) => {
    bytes = Math.max(bytes, event.offset + event.data.length);
    ack();
    if (waiter && bytes >= waiter.until) {
      const { resolve } = waiter;
      waiter = null;
      resolve();
    }
  });
  return {
    socket,
    bytes: () => bytes,
    /** Resolves once this socket has the terminal's bytes up to `until`. */
    reach: (until: number) => (bytes >= until ? Promise.resolve() : new Promise<void>((resolve) => (waiter = { until, resolve }))),
  };
}

/** A bench never hangs: a wait over 15 s fails, saying what it waited for. */
async function bounded<T>(promise: Promise<T>, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what()}`)), 15_000)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function main(): Promise<void> {
  const runnerIds = { a: `ka-${process.pid}`, b: `kb-${process.pid}` };
  const two = await startTwoRunners({ runnerIds });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "berth-terminal-forward-bench-"));
  const repos = createRepositories(await createDatabase({ dataDir: scratch, databaseUrl: two.databaseUrl }));
  try {
    const sessionId = await two.a.createSession({ autonomy: "trusted" });
    console.error(`terminal-forward: runners up, session ${sessionId} on ${runnerIds.a}`);
    await setSessionOwner(repos, sessionId, { id: runnerIds.a, url: two.a.url });
    const minted = await two.a.api<{ secret: string }>("POST", "/api/browser-sessions", { userAgent: "terminal-forward bench" });
    const cookie = `berth_browser=${minted.body.secret}`;
    const owner = await follower(two.a, cookie);
    const other = await follower(two.b, cookie);
    const info = await emitWithAck<{ terminalId: string }>(owner.socket, "terminal:open", { sessionId, cols: 200, rows: 50 });
    // B learns where the terminal is from the list, as the IDE's reconnect does.
    await emitWithAck(other.socket, "terminal:list", { sessionId });
    for (const side of [owner, other]) await emitWithAck(side.socket, "terminal:attach", { terminalId: info.terminalId, offset: 0 });
    await emitWithAck(owner.socket, "terminal:input", { terminalId: info.terminalId, data: "stty -icanon; exec cat\n" });
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    /** One keystroke typed through `side`: the time until its echo reaches `side`; then both sides caught up. */
    const keystroke = async (side: typeof owner, key: string): Promise<number> => {
      const until = Math.max(owner.bytes(), other.bytes()) + 1;
      const started = performance.now();
      const echoed = side.reach(until);
      side.socket.emit("terminal:input", { terminalId: info.terminalId, data: key }, () => undefined);
      await bounded(echoed, () => `the echo of ${JSON.stringify(key)} through the ${side === owner ? "owner" : "other runner"} (wanted byte ${until}; owner's socket has ${owner.bytes()}, the other's ${other.bytes()})`);
      const elapsed = performance.now() - started;
      await bounded(Promise.all([owner.reach(until), other.reach(until)]), () => `both sockets at byte ${until} (owner's ${owner.bytes()}, the other's ${other.bytes()})`);
      return elapsed;
    };
    console.error("terminal-forward: cat runs in the terminal; warming up");
    for (let i = 0; i < 10; i++) await keystroke(i % 2 ? owner : other, "w");

    const p50s = { owner: [] as number[], other: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const which of round % 2 ? (["other", "owner"] as const) : (["owner", "other"] as const)) {
        const side = which === "owner" ? owner : other;
        const samples: number[] = [];
        for (let k = 0; k < KEYS; k++) samples.push(await keystroke(side, String.fromCharCode(97 + (k % 26))));
        p50s[which].push(percentile(samples, 50));
      }
    }
    const [direct, relayed] = [median(p50s.owner), median(p50s.other)];
    console.log(`keystroke echo: through the other runner p50 ${relayed.toFixed(2)} ms, through the owner ${direct.toFixed(2)} ms (${(relayed / direct).toFixed(2)}x; medians of ${ROUNDS} alternated rounds of ${KEYS}; load ${loadavg()})`);
    console.log(`bench-figure ${JSON.stringify({ figure: "terminal keystroke echo p50 through the non-owner runner", value: relayed, unit: "ms", baseline: "through the owner", baselineValue: direct })}`);
    owner.socket.disconnect();
    other.socket.disconnect();
  } finally {
    await repos.close();
    await two.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
