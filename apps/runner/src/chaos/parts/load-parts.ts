import fs from "node:fs";
import { RunLogs } from "../../runs/run-logs";
import type { ChildRunner } from "../../testing/child-runner";
import { ack, newSession, pct, resources, rssKiB, sleep, tool } from "../chaos-kit";
import type { ChaosFigure, ChaosScale } from "../chaos-scale";

export async function sessionsTimesCalls(runner: ChildRunner, scale: ChaosScale): Promise<ChaosFigure[]> {
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

export async function createDeleteCycles(runner: ChildRunner, scale: ChaosScale): Promise<ChaosFigure[]> {
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

export async function slowReader(runner: ChildRunner, scale: ChaosScale): Promise<ChaosFigure[]> {
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
