import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import type { Socket } from "socket.io-client";
import { ChildRunner } from "../testing/child-runner";
import { RunLogs } from "../runs/run-logs";
import { TEST_ADMIN_TOKEN } from "../testing/runner-test-kit";
import { PrivateDockerd } from "./private-dockerd";
import { EVENT_PAYLOADS, ROUTE_BODIES, TOOL_ARGS } from "./fuzz-surface";
import { mutatedFor, type Mutation } from "./zod-arbitrary";

/** How much of each part runs: `npm test` runs a bounded subset, `npm run chaos` the full campaign. */
export interface ChaosScale {
  sessions: number;
  callsPerSession: number;
  cycles: number;
  fuzzCases: number;
  /** Bytes printed to a slow socket reader (0 skips the part). */
  slowReaderBytes: number;
  /** Stop and restart a private dockerd under a live session (private-dockerd.ts). */
  dockerd: boolean;
}

export const SHORT_SCALE: ChaosScale = {
  sessions: 5,
  callsPerSession: 20,
  cycles: 10,
  fuzzCases: 300,
  slowReaderBytes: 0,
  dockerd: false,
};
export const FULL_SCALE: ChaosScale = {
  sessions: 20,
  callsPerSession: 50,
  cycles: 100,
  fuzzCases: 3000,
  slowReaderBytes: 100 * 1024 * 1024,
  dockerd: true,
};

/** One line of the table: a figure, its value, and whether it is what the campaign promises. */
export interface ChaosFigure {
  part: string;
  figure: string;
  value: string;
  ok: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SRC = path.resolve(import.meta.dirname, "..");

/**
 * Berth's own campaign against a runner of its own (a child process: own data dir, port and BERTH_RUNNER_ID,
 * loopback only): a SIGKILL under live followers, concurrent sessions and calls, create/delete cycles, a fuzz
 * of every REST route and socket event, and a slow socket reader under bulk output. Returns the figures.
 */
export async function runChaos(
  scale: ChaosScale,
  log: (line: string) => void = () => undefined,
  only?: string,
): Promise<ChaosFigure[]> {
  const figures: ChaosFigure[] = [];
  const runner = await ChildRunner.create({
    runnerId: `chaos-${process.pid}-${crypto.randomBytes(3).toString("hex")}`,
  });
  try {
    for (const [name, part] of [
      ["SIGKILL mid-run", sigkillMidRun],
      ["sessions × calls", sessionsTimesCalls],
      ["create/delete cycles", createDeleteCycles],
      ["fuzz", fuzzEverything],
      ["slow socket reader", slowReader],
      ["dockerd restart", dockerdRestart],
    ] as const) {
      if (only && !name.includes(only)) continue;
      log(`chaos: ${name}…`);
      try {
        figures.push(...(await part(runner, scale)));
      } catch (error) {
        figures.push({ part: name, figure: "completed", value: (error as Error).message.slice(0, 200), ok: false });
      }
    }
  } finally {
    await runner.close();
  }
  return figures;
}

/** The figures as one table, for the terminal and the report. */
export function formatTable(figures: ChaosFigure[]): string {
  const rows = [
    ["part", "figure", "value", "ok"],
    ...figures.map((f) => [f.part, f.figure, f.value, f.ok ? "yes" : "NO"]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(rows[0]!), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}

// ---- parts ----

async function sigkillMidRun(runner: ChildRunner): Promise<ChaosFigure[]> {
  const session = await newSession(runner);
  const started = await tool(runner, session, "bash", {
    action: "start",
    command: "for i in $(seq 1 100000); do echo chaos-line-$i; sleep 0.01; done",
  });
  const processId = String(started.details?.processId);
  const followers = await Promise.all([runner.socket(), runner.socket()]);
  const shown = followers.map(() => "");
  let runId = "";
  for (const [i, socket] of followers.entries()) {
    socket.on("process:output", (event: { data: string }) => (shown[i] += event.data));
    runId = (await ack<{ runId: string }>(socket, "process:subscribe", { sessionId: session, processId, offset: 0 }))
      .runId;
  }
  await waitFor("followers to see output", () => shown.every((s) => s.length > 2000));
  await runner.kill();
  const seen = shown.map((s) => s);
  await runner.start();
  const combined = fs.readFileSync(RunLogs.pathFor(runner.dataDir, runId, "combined")).toString();
  const lost = seen.reduce((n, s) => n + (combined.startsWith(s) ? 0 : 1), 0);
  const run = (
    await runner.api<{ run: { status: string; cause: string | null; receiptId: string | null; stdoutBytes: number } }>(
      "GET",
      `/api/runs/${runId}`,
    )
  ).body.run;
  const stdoutSize = fs.statSync(RunLogs.pathFor(runner.dataDir, runId, "stdout")).size;
  const unsealed = (
    await runner.api<{ runs: { receiptId: string | null; status: string }[] }>("GET", "/api/runs?limit=200")
  ).body.runs.filter((r) => r.status !== "running" && !r.receiptId).length;
  const still = containerArgs(session).includes("chaos-line-");
  await runner.api("DELETE", `/api/sessions/${session}`);
  return [
    {
      part: "SIGKILL mid-run",
      figure: "followers whose shown output is not in the stored log",
      value: String(lost),
      ok: lost === 0,
    },
    {
      part: "SIGKILL mid-run",
      figure: "run after restart",
      value: `${run.status} (${run.cause})`,
      ok: run.status === "interrupted" && Boolean(run.cause),
    },
    {
      part: "SIGKILL mid-run",
      figure: "stdoutBytes = stored log size",
      value: `${run.stdoutBytes} = ${stdoutSize}`,
      ok: run.stdoutBytes === stdoutSize && stdoutSize > 0,
    },
    { part: "SIGKILL mid-run", figure: "ended runs without a receipt", value: String(unsealed), ok: unsealed === 0 },
    {
      part: "SIGKILL mid-run",
      figure: "process left running in the container",
      value: still ? "yes" : "no",
      ok: !still,
    },
  ];
}

async function sessionsTimesCalls(runner: ChildRunner, scale: ChaosScale): Promise<ChaosFigure[]> {
  const sessions = await Promise.all(Array.from({ length: scale.sessions }, () => newSession(runner)));
  const started = performance.now();
  let errors = 0;
  const durations: number[] = [];
  await Promise.all(
    sessions.map(async (session, s) => {
      for (let c = 0; c < scale.callsPerSession; c++) {
        const t = performance.now();
        const reply = await runner.api<{ ok?: boolean; details?: { stdout?: string } }>(
          "POST",
          `/api/sessions/${session}/tools/bash`,
          { args: { command: `echo s${s}-c${c}` } },
        );
        durations.push(performance.now() - t);
        if (reply.status !== 200 || reply.body.details?.stdout !== `s${s}-c${c}\n`) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  for (const session of sessions) await runner.api("DELETE", `/api/sessions/${session}`);
  durations.sort((a, b) => a - b);
  const total = scale.sessions * scale.callsPerSession;
  return [
    {
      part: "sessions × calls",
      figure: `errors in ${scale.sessions} × ${scale.callsPerSession} bash calls`,
      value: String(errors),
      ok: errors === 0,
    },
    {
      part: "sessions × calls",
      figure: "calls/s; p50 / p95 ms",
      value: `${(total / seconds).toFixed(1)}; ${pct(durations, 0.5)} / ${pct(durations, 0.95)}`,
      ok: true,
    },
  ];
}

async function createDeleteCycles(runner: ChildRunner, scale: ChaosScale): Promise<ChaosFigure[]> {
  // One cycle first, so lazily made things (the Docker client, prepared statements) are not counted as growth.
  await runner.api("DELETE", `/api/sessions/${await newSession(runner)}`);
  const before = { ...resources(runner), rss: rssKiB(runner) };
  let errors = 0;
  for (let i = 0; i < scale.cycles; i++) {
    const session = await newSession(runner);
    const reply = await runner.api<{ details?: { stdout?: string } }>("POST", `/api/sessions/${session}/tools/bash`, {
      args: { command: "echo cycle" },
    });
    if (reply.body.details?.stdout !== "cycle\n") errors++;
    if ((await runner.api("DELETE", `/api/sessions/${session}`)).status >= 300) errors++;
  }
  await sleep(500);
  const after = { ...resources(runner), rss: rssKiB(runner) };
  const rssGrowth = after.rss - before.rss;
  return [
    {
      part: "create/delete cycles",
      figure: `errors in ${scale.cycles} cycles`,
      value: String(errors),
      ok: errors === 0,
    },
    {
      part: "create/delete cycles",
      figure: "containers before → after",
      value: `${before.containers} → ${after.containers}`,
      ok: after.containers <= before.containers,
    },
    {
      part: "create/delete cycles",
      figure: "volumes before → after",
      value: `${before.volumes} → ${after.volumes}`,
      ok: after.volumes <= before.volumes,
    },
    {
      part: "create/delete cycles",
      figure: "open fds before → after",
      value: `${before.fds} → ${after.fds}`,
      ok: after.fds <= before.fds + 5,
    },
    // A V8 heap grows and shrinks in steps: bounded, not equal.
    {
      part: "create/delete cycles",
      figure: "runner RSS before → after (MiB)",
      value: `${(before.rss / 1024).toFixed(0)} → ${(after.rss / 1024).toFixed(0)}`,
      ok: rssGrowth < 64 * 1024,
    },
  ];
}

async function fuzzEverything(runner: ChildRunner, scale: ChaosScale): Promise<ChaosFigure[]> {
  const { routes, events } = registeredSurface();
  const random = seeded(0xbe7e);
  // A live session, so bodies that pass validation reach the tools and the sandbox behind them.
  const live = await newSession(runner);
  const cases = fc.sample(restCase(routes, live), { seed: 0xbe7e, numRuns: scale.fuzzCases });
  let fiveXx = 0;
  let badShape = 0;
  let unanswered = 0;
  const examples: string[] = [];
  const mutations = new Map<string, number>();
  for (const [i, generated] of cases.entries()) {
    // One case in four is the seeded hostile generator's (any JSON, hostile keys), the rest come from the schemas.
    const hostile = i % 4 === 3;
    const { method, route, url } = hostile ? hostileRoute(routes[i % routes.length]!, random) : generated;
    const body = hostile
      ? method === "GET" || method === "DELETE"
        ? undefined
        : hostileValue(random, 3)
      : generated.body;
    if (!hostile) mutations.set(generated.mutation, (mutations.get(generated.mutation) ?? 0) + 1);
    const query =
      random() < 0.3 ? `?${encodeHostile(hostileString(random))}=${encodeHostile(hostileString(random))}` : "";
    const response = await fetch(`${runner.url}${url}${query}`, {
      method,
      headers: {
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: random() < 0.05 ? "{not json" : JSON.stringify(body) }),
    }).catch((error: Error) => ({ status: 599, text: async () => error.message }));
    const text = await response.text();
    if (response.status >= 500) {
      fiveXx++;
      if (examples.length < 3) examples.push(`${method} ${route} → ${response.status} ${text.slice(0, 80)}`);
    }
    if (response.status >= 400 && !isErrorShape(text)) {
      badShape++;
      if (examples.length < 3) examples.push(`${method} ${route} → ${response.status} ${text.slice(0, 60)}`);
    }
  }
  let socket = await runner.socket();
  const socketCases = Math.max(events.length, Math.floor(scale.fuzzCases / 3));
  const payloads = fc.sample(socketCase(events, live), { seed: 0xbe7f, numRuns: socketCases });
  for (const [i, generated] of payloads.entries()) {
    const hostile = i % 4 === 3;
    const event = hostile ? events[i % events.length]! : generated.event;
    const payload = hostile ? hostileValue(random, 3) : generated.payload;
    const withPayload = random() < 0.9;
    const answer = await new Promise<unknown[] | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), 5_000);
      const done = (...args: unknown[]) => {
        clearTimeout(timer);
        resolve(args);
      };
      if (withPayload) socket.emit(event, payload, done);
      else socket.emit(event, done);
    });
    if (!answer) {
      unanswered++;
      if (examples.length < 3) examples.push(`socket ${event}: no ack`);
    } else if (answer[0] !== null && answer[0] !== undefined && !isAckError(answer[0])) {
      badShape++;
      if (examples.length < 3) examples.push(`socket ${event}: ${JSON.stringify(answer[0]).slice(0, 80)}`);
    }
    if (!socket.connected) {
      socket.disconnect();
      socket = await runner.socket();
    }
  }
  socket.disconnect();
  const { body } = await runner.api<{ sessions: { id: string }[] }>("GET", "/api/sessions");
  for (const s of body.sessions ?? []) await runner.api("DELETE", `/api/sessions/${s.id}`);
  const note = examples.length ? ` (${examples.join("; ")})` : "";
  const mix = [...mutations].map(([m, n]) => `${m} ${n}`).join(", ");
  return [
    {
      part: "fuzz",
      figure: `5xx in ${scale.fuzzCases} cases over ${routes.length} routes`,
      value: `${fiveXx}${fiveXx ? note : ""}`,
      ok: fiveXx === 0,
    },
    {
      part: "fuzz",
      figure: "errors not {error:{code,message}} (REST) / {code,message} (ack)",
      value: `${badShape}${badShape ? note : ""}`,
      ok: badShape === 0,
    },
    {
      part: "fuzz",
      figure: `socket events never answered in ${socketCases} cases over ${events.length} events`,
      value: String(unanswered),
      ok: unanswered === 0,
    },
    { part: "fuzz", figure: "REST cases from the schemas, by mutation", value: mix, ok: true },
  ];
}

/** A route's params: mostly hostile; a session route's `:id` is the live session where that harms nothing. */
function paramArbitrary(method: string, route: string, name: string, live: string): fc.Arbitrary<string> {
  const hostile = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ maxLength: 12 }));
  const destructive = method === "DELETE" || route.endsWith("/restart");
  if (name === "tool") return fc.oneof(fc.constantFrom(...Object.keys(TOOL_ARGS)), hostile);
  if (name === "id" && route.startsWith("/api/sessions/") && !destructive) return fc.oneof(fc.constant(live), hostile);
  return hostile;
}

/** One REST case: a registered route, its params, and a body from its schema broken one way (zod-arbitrary.ts). */
function restCase(
  routes: [string, string][],
  live: string,
): fc.Arbitrary<{ method: string; route: string; url: string; body: unknown; mutation: string }> {
  return fc.oneof(
    ...routes.map(([method, route]) => {
      const names = [...route.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      const params = fc.tuple(...names.map((n) => paramArbitrary(method, route, n, live)));
      const key = `${method} ${route}`;
      const schema = ROUTE_BODIES[key];
      const bodyless = method === "GET" || method === "DELETE";
      return params.chain((values) => {
        const url = names.reduce((u, n, i) => u.replace(`:${n}`, encodeHostile(values[i]!)), route);
        const tool = names.includes("tool") ? values[names.indexOf("tool")]! : "";
        const bodies: fc.Arbitrary<{ mutation: Mutation; value: unknown }> = bodyless
          ? fc.constant({ mutation: "none" as const, value: undefined })
          : Object.hasOwn(TOOL_ARGS, tool) // a hostile `:tool` may be "constructor"
            ? mutatedFor(TOOL_ARGS[tool]!).map(({ mutation, value }) => ({ mutation, value: { args: value } }))
            : schema
              ? mutatedFor(schema)
              : fc.jsonValue({ maxDepth: 3 }).map((value) => ({ mutation: "none" as const, value }));
        return bodies.map(({ mutation, value }) => ({
          method,
          route,
          url,
          body: value,
          mutation: bodyless ? "no body" : mutation,
        }));
      });
    }),
  );
}

/** One socket case: an event and its payload from the event's schema, broken one way; tool:call's args from the tool's. */
function socketCase(events: string[], live: string): fc.Arbitrary<{ event: string; payload: unknown }> {
  return fc.oneof(
    ...events.map((event) => {
      const schema = EVENT_PAYLOADS[event];
      if (event === "tool:call") {
        return fc.tuple(fc.constantFrom(...Object.keys(TOOL_ARGS)), fc.boolean()).chain(([tool, own]) =>
          mutatedFor(TOOL_ARGS[tool]!).map(({ value }) => ({
            event,
            payload: { sessionId: own ? live : "ses_nope", tool, args: value },
          })),
        );
      }
      const payloads = schema ? mutatedFor(schema).map((m) => m.value) : fc.jsonValue({ maxDepth: 3 });
      return payloads.map((payload) => ({ event, payload }));
    }),
  );
}

/** The seeded generator's case for a route: hostile params, no schema. */
function hostileRoute(
  [method, route]: [string, string],
  random: () => number,
): { method: string; route: string; url: string } {
  return { method, route, url: route.replace(/:(\w+)/g, () => encodeHostile(hostileString(random))) };
}

async function slowReader(runner: ChildRunner, scale: ChaosScale): Promise<ChaosFigure[]> {
  if (scale.slowReaderBytes === 0) return [];
  const session = await newSession(runner);
  const mib = Math.round(scale.slowReaderBytes / (1024 * 1024));
  const started = await tool(runner, session, "bash", {
    action: "start",
    command: `head -c ${scale.slowReaderBytes} /dev/zero | tr '\\0' 'x' | fold -w 1023`,
  });
  const processId = String(started.details?.processId);
  const socket = await runner.socket();
  let received = 0;
  socket.on("process:output", (event: { data: string }) => (received += event.data.length));
  const { runId } = await ack<{ runId: string }>(socket, "process:subscribe", {
    sessionId: session,
    processId,
    offset: 0,
  });
  // The reader stops reading its TCP socket: the runner must hold back, not buffer 100 MB for it.
  const raw = (socket.io.engine as unknown as { transport: { ws?: { _socket?: { pause(): void; resume(): void } } } })
    .transport.ws?._socket;
  raw?.pause();
  const baseline = rssKiB(runner);
  let peak = baseline;
  const until = Date.now() + 600_000;
  for (;;) {
    peak = Math.max(peak, rssKiB(runner));
    const run = (await runner.api<{ run: { status: string } }>("GET", `/api/runs/${runId}`)).body.run;
    if (run.status !== "running" || Date.now() > until) break;
    await sleep(250);
  }
  raw?.resume();
  const stored = fs.statSync(RunLogs.pathFor(runner.dataDir, runId, "stdout")).size;
  socket.disconnect();
  await runner.api("DELETE", `/api/sessions/${session}`);
  const growth = peak - baseline;
  return [
    {
      part: "slow socket reader",
      figure: `stored log of ${mib} MiB printed (bytes)`,
      value: String(stored),
      ok: stored >= scale.slowReaderBytes,
    },
    {
      part: "slow socket reader",
      figure: "runner RSS at start → peak (MiB)",
      value: `${(baseline / 1024).toFixed(0)} → ${(peak / 1024).toFixed(0)}`,
      ok: growth < 256 * 1024,
    },
    { part: "slow socket reader", figure: "bytes delivered to the paused reader", value: String(received), ok: true },
  ];
}

async function dockerdRestart(_runner: ChildRunner, scale: ChaosScale): Promise<ChaosFigure[]> {
  if (!scale.dockerd) return [];
  const engine = new PrivateDockerd();
  let runner: ChildRunner | null = null;
  try {
    await engine.start();
    engine.loadImage("berth-sandbox:latest");
    runner = await ChildRunner.create({ runnerId: `chaos-dockerd-${process.pid}`, env: { DOCKER_HOST: engine.host } });
    const session = await newSession(runner);
    await tool(runner, session, "bash", {
      action: "start",
      command: "for i in $(seq 1 100000); do echo engine-$i; sleep 0.05; done",
    });
    await sleep(1000);
    const t = performance.now();
    await engine.stop();
    await engine.start();
    const downSeconds = ((performance.now() - t) / 1000).toFixed(1);
    // Give the runner a moment to see its attach stream end and record why.
    await sleep(2000);
    const call = await runner.api<{
      ok?: boolean;
      details?: { stdout?: string };
      error?: { code?: string; message?: string };
    }>("POST", `/api/sessions/${session}/tools/bash`, { args: { command: "echo back" } });
    const row = (
      await runner.api<{ status: string; terminationCause?: string | null }>("GET", `/api/sessions/${session}`)
    ).body;
    const cameBack = call.status === 200 && call.body.details?.stdout === "back\n";
    const endedWithCause = !cameBack && Boolean(row.terminationCause) && typeof call.body.error?.code === "string";
    const runs = (
      await runner.api<{
        runs: {
          id: string;
          status: string;
          outcome: string | null;
          cause: string | null;
          receiptId: string | null;
          tool: string;
        }[];
      }>("GET", `/api/runs?sessionId=${session}`)
    ).body.runs;
    // Newest first: the oldest is the background process started before the engine went down.
    const bg = runs.at(-1);
    const openRuns = runs.filter((r) => r.status === "running").length;
    const unsealed = runs.filter((r) => r.status !== "running" && !r.receiptId).length;
    await runner.api("DELETE", `/api/sessions/${session}`);
    const label = `label=berth.runner=${runner.runnerId}`;
    const containers = engine.docker(["ps", "-aq", "--filter", label]).split("\n").filter(Boolean).length;
    const volumes = engine.docker(["volume", "ls", "-q", "--filter", label]).split("\n").filter(Boolean).length;
    return [
      { part: "dockerd restart", figure: "engine down and up again (s)", value: downSeconds, ok: true },
      {
        part: "dockerd restart",
        figure: "session after the restart",
        value: cameBack
          ? "came back (a call answers)"
          : `${row.status}, cause ${row.terminationCause ?? "none"}; call: ${call.body.error?.code ?? call.status}`,
        ok: cameBack || endedWithCause,
      },
      {
        part: "dockerd restart",
        figure: "background run after the restart",
        value: bg ? `${bg.status}, ${bg.outcome ?? "no outcome"}${bg.cause ? ` (${bg.cause})` : ""}` : "none",
        ok: openRuns === 0 && Boolean(bg?.cause || bg?.status === "finished"),
      },
      { part: "dockerd restart", figure: "ended runs without a receipt", value: String(unsealed), ok: unsealed === 0 },
      {
        part: "dockerd restart",
        figure: "orphan containers / volumes after delete",
        value: `${containers} / ${volumes}`,
        ok: containers === 0 && volumes === 0,
      },
    ];
  } finally {
    await runner?.close().catch(() => undefined);
    await engine.destroy();
  }
}

// ---- helpers ----

async function newSession(runner: ChildRunner): Promise<string> {
  const { status, body } = await runner.api<{ id: string }>("POST", "/api/sessions", { autonomy: "trusted" });
  if (status !== 201) throw new Error(`create session: ${status} ${JSON.stringify(body)}`);
  return body.id;
}

async function tool(
  runner: ChildRunner,
  session: string,
  name: string,
  args: unknown,
): Promise<{ ok: boolean; details?: Record<string, unknown> }> {
  const { status, body } = await runner.api<{ ok: boolean; details?: Record<string, unknown> }>(
    "POST",
    `/api/sessions/${session}/tools/${name}`,
    { args },
  );
  if (status !== 200 || !body.ok) throw new Error(`${name}: ${status} ${JSON.stringify(body).slice(0, 200)}`);
  return body;
}

function ack<T>(socket: Socket, event: string, payload: unknown): Promise<T> {
  return new Promise((resolve, reject) =>
    socket.emit(event, payload, (error: unknown, result: T) =>
      error ? reject(new Error(`${event}: ${JSON.stringify(error)}`)) : resolve(result),
    ),
  );
}

async function waitFor(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

function containerArgs(sessionId: string): string {
  const id = execFileSync("docker", ["ps", "-q", "--filter", `label=berth.session=${sessionId}`], {
    encoding: "utf8",
  }).trim();
  return id ? execFileSync("docker", ["top", id, "-eo", "pid,args"], { encoding: "utf8" }) : "";
}

/** What this runner owns in Docker (by its runner label) and holds open. */
function resources(runner: ChildRunner): { containers: number; volumes: number; fds: number } {
  const count = (args: string[]) =>
    execFileSync("docker", args, { encoding: "utf8" }).split("\n").filter(Boolean).length;
  const label = `label=berth.runner=${runner.runnerId}`;
  const pid = runner.pid();
  return {
    containers: count(["ps", "-aq", "--filter", label]),
    volumes: count(["volume", "ls", "-q", "--filter", label]),
    fds: pid ? fs.readdirSync(`/proc/${pid}/fd`).length : 0,
  };
}

/** The runner's resident set in KiB; the process is node under tsx (its own pid, no wrapper). */
function rssKiB(runner: ChildRunner): number {
  const pid = runner.pid();
  if (!pid) return 0;
  const match = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) : 0;
}

function pct(sorted: number[], p: number): string {
  return (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0).toFixed(0);
}

/** Every REST route and client → server socket event the runner's sources register (as routes-coverage reads them). */
export function registeredSurface(): { routes: [string, string][]; events: string[] } {
  const routes = new Map<string, [string, string]>();
  const events = new Set<string>();
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(file);
      return entry.name.endsWith(".ts") && !entry.name.includes(".test.") ? [file] : [];
    });
  for (const file of walk(SRC)) {
    const text = fs.readFileSync(file, "utf8");
    for (const [, method, route] of text.matchAll(/\bapp\.(get|post|put|patch|delete)(?:<[^>]*>)?\(\s*"([^"]+)"/g)) {
      routes.set(`${method} ${route}`, [method!.toUpperCase(), route!]);
    }
    for (const [, event] of text.matchAll(/(?<![.\w])on\("([a-z-]+:[a-z-]+)"/g)) events.add(event!);
  }
  return { routes: [...routes.values()].sort(), events: [...events].sort() };
}

function isErrorShape(text: string): boolean {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    return typeof body.error?.code === "string" && typeof body.error.message === "string";
  } catch {
    return false;
  }
}

function isAckError(value: unknown): boolean {
  const v = value as { code?: unknown; message?: unknown } | null;
  return typeof v?.code === "string" && typeof v.message === "string";
}

/** A small deterministic PRNG (mulberry32), so a failing case can be replayed from the seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOSTILE_STRINGS = [
  "",
  " ",
  "\ud800",
  "a\udfffb",
  "../../etc/passwd",
  "%00",
  "\u0000",
  "ses_",
  "run_x",
  "💥".repeat(50),
  "x".repeat(70_000),
  "<script>",
  "null",
  "-1",
  "1e309",
  "__proto__",
  "constructor",
];

function hostileString(random: () => number): string {
  if (random() < 0.7) return HOSTILE_STRINGS[Math.floor(random() * HOSTILE_STRINGS.length)]!;
  const length = Math.floor(random() * 40);
  return Array.from({ length }, () => String.fromCharCode(Math.floor(random() * 0xffff))).join("");
}

/** Percent-encoded; a lone surrogate (which encodeURIComponent refuses) goes as the bytes of one, invalid UTF-8. */
function encodeHostile(text: string): string {
  return Array.from(text, (ch) => {
    try {
      return encodeURIComponent(ch);
    } catch {
      return "%ED%A0%80";
    }
  }).join("");
}

/** Any JSON value, biased to what schemas refuse: wrong types, lone surrogates, huge numbers, deep nesting. */
function hostileValue(random: () => number, depth: number): unknown {
  const r = random();
  if (depth <= 0 || r < 0.3) {
    const pick = Math.floor(random() * 7);
    return [null, true, -1, 1e308, 2 ** 53 + 1, hostileString(random), 0.5][pick];
  }
  if (r < 0.5) return Array.from({ length: Math.floor(random() * 4) }, () => hostileValue(random, depth - 1));
  const keys = [
    "args",
    "name",
    "sessionId",
    "runId",
    "processId",
    "offset",
    "path",
    "content",
    "command",
    "action",
    "autonomy",
    "role",
    "token",
    "env",
    "stream",
    "id",
    hostileString(random),
  ];
  const object: Record<string, unknown> = {};
  for (let i = Math.floor(random() * 5); i > 0; i--)
    object[keys[Math.floor(random() * keys.length)]!] = hostileValue(random, depth - 1);
  return object;
}
