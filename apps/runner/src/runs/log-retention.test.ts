import fs from "node:fs";
import type { Repositories } from "@berth/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalRunLogStore } from "../cluster/run-log-store";
import { openTestRepos } from "../testing/open-test-repos";
import { LogRetention } from "./log-retention";
import { RunLogs, readLog } from "./run-logs";

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse("2026-06-01T00:00:00Z");

let dataDir: string;
let repos: Repositories;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ dataDir, repos, close } = await openTestRepos("berth-log-retention-"));
  await repos.users.create({ id: "user_a", name: "a", role: "developer" });
  await repos.sessions.create({ id: "ses_a", name: "kept", ownerId: "user_a", autonomy: "default", network: "none", env: {} });
});
afterAll(() => close());

/** A run with one line of output on disk, ended `daysAgo` days before NOW (null: still running). */
async function runWithLog(id: string, daysAgo: number | null): Promise<void> {
  await repos.runs.create({ id, sessionId: "ses_a", userId: "user_a", tool: "bash", kind: "bash", args: {}, secrets: [], caller: "api", startedAt: new Date(NOW - 400 * DAY) });
  const logs = new RunLogs(RunLogs.dirFor(dataDir, id), () => NOW);
  logs.append("stdout", Buffer.from(`${id}\n`));
  await logs.close();
  if (daysAgo === null) return;
  await repos.runs.finish(id, { status: "finished", outcome: "succeeded", cause: null, exitCode: 0, details: {}, stdoutBytes: id.length + 1, stderrBytes: 0, endedAt: new Date(NOW - daysAgo * DAY), durationMs: 1 });
}

const hasLog = (id: string) => readLog(dataDir, id, "stdout", 0, 100).content.toString() === `${id}\n`;

describe("LogRetention", () => {
  it("removes the logs of runs that ended more than the retention ago and keeps the rest, the rows and receipts with them", async () => {
    await runWithLog("run_ancient", 200);
    await runWithLog("run_old", 31);
    await runWithLog("run_recent", 29);
    await runWithLog("run_running", null);
    const lines: string[] = [];
    let now = NOW;
    const retention = new LogRetention({ runs: repos.runs, logs: new LocalRunLogStore(dataDir), days: 30, log: (line) => lines.push(line), now: () => now });

    expect(await retention.sweep()).toBe(2);
    expect(["run_ancient", "run_old", "run_recent", "run_running"].map(hasLog)).toEqual([false, false, true, true]);
    expect(fs.existsSync(RunLogs.dirFor(dataDir, "run_old"))).toBe(false);
    // The run is still there to open and verify; only its log is gone.
    expect(await repos.runs.get("run_old")).toMatchObject({ status: "finished", stdoutBytes: "run_old\n".length });
    expect(lines).toEqual(["log retention: swept the logs of 2 run(s) that ended before 2026-05-02T00:00:00.000Z"]);

    // The next sweep goes on from the last run it removed: two days on, the recent run is past retention too.
    expect(await retention.sweep()).toBe(0);
    now = NOW + 2 * DAY;
    expect(await retention.sweep()).toBe(1);
    expect(hasLog("run_recent")).toBe(false);
    expect(hasLog("run_running")).toBe(true);
  });

  it("keeps every log with retention 0, and a failing sweep is logged, not thrown", async () => {
    await runWithLog("run_forever", 1000);
    const lines: string[] = [];
    const keepAll = new LogRetention({ runs: repos.runs, logs: new LocalRunLogStore(dataDir), days: 0, log: (line) => lines.push(line), now: () => NOW });
    keepAll.start();
    expect(await keepAll.sweep()).toBe(0);
    await keepAll.stop();
    expect(hasLog("run_forever")).toBe(true);

    const broken = new LogRetention({
      runs: { endedBefore: () => Promise.reject(new Error("database is locked")) },
      logs: new LocalRunLogStore(dataDir),
      days: 30,
      log: (line) => lines.push(line),
      now: () => NOW,
    });
    expect(await broken.sweep()).toBe(0);
    expect(lines).toEqual(["log retention: sweep failed, tried again in an hour: database is locked"]);
    expect(hasLog("run_forever")).toBe(true);
  });
});
