import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { RunLogs } from "../runs/run-logs";
import { TerminalFollower } from "./terminal-follower";

/**
 * A terminal's transcript as the pump keeps it (terminal-service.ts): each chunk appended to the run's logs, which
 * reach the disk a moment later, and pushed to the followers at once; and a client that acks every chunk.
 */
function terminal() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-follower-"));
  onTestFinished(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const logs = new RunLogs(RunLogs.dirFor(dataDir, "run_t"));
  const followers: TerminalFollower[] = [];
  let logged = 0;
  const got: Buffer[] = [];
  const follower = (from: number) => {
    const f = new TerminalFollower(
      { dataDir, runId: "run_t", logged: () => logged, written: () => logs.flushed() },
      from,
      (_offset, data, onAck) => {
        got.push(data);
        onAck();
      },
      () => undefined,
      () => undefined,
    );
    followers.push(f);
    return f;
  };
  const print = (text: string) => {
    const data = Buffer.from(text);
    logs.append("stdout", data);
    const offset = logged;
    logged += data.length;
    for (const f of followers) f.push(offset, data);
  };
  return { follower, print, logs, received: () => Buffer.concat(got).toString() };
}

describe("TerminalFollower", () => {
  it("attached while a chunk is taken but not yet on disk, still gets that chunk once it is stored", async () => {
    const t = terminal();
    t.print("$ ");
    // The attach lands between the pump's append and the write reaching the file: the file has nothing yet.
    t.follower(0).start();
    await t.logs.flushed();
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.received()).toBe("$ ");
    // And it is live afterwards: the next keystroke's echo comes straight through.
    t.print("a");
    expect(t.received()).toBe("$ a");
    await t.logs.close();
  });

});
