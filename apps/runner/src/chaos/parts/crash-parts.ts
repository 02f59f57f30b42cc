import fs from "node:fs";
import { RunLogs, logSize, readLog } from "../../runs/run-logs";
import { ChildRunner } from "../../testing/child-runner";
import { ack, containerArgs, newSession, sleep, tool, waitFor } from "../chaos-kit";
import type { ChaosFigure, ChaosScale } from "../chaos-scale";
import { PrivateDockerd } from "../private-dockerd";

/** A SIGKILL of the runner under live followers: nothing lost, everything adopted. */
export async function sigkillMidRun(runner: ChildRunner): Promise<ChaosFigure[]> {
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
  const combined = readLog(runner.dataDir, runId, "combined", 0, logSize(runner.dataDir, runId, "combined")).content.toString();
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

export async function dockerdRestart(_runner: ChildRunner, scale: ChaosScale): Promise<ChaosFigure[]> {
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
