import { describe, expect, it } from "vitest";
import type { ToolProgress } from "@berth/protocol";
import { RunnerEvents } from "../events/runner-events";
import { followRunProgress } from "./run-progress";

const output = (runId: string, data: string) => ({ runId, sessionId: "s", stream: "stdout" as const, offset: 0, data, bytes: Buffer.byteLength(data) });

describe("followRunProgress", () => {
  it("reports bytes seen so far, elapsed time and the last line of the run's own output", () => {
    const events = new RunnerEvents();
    const seen: ToolProgress[] = [];
    let now = 1_000;
    const stop = followRunProgress(events, "run_a", (p) => seen.push(p), () => now);
    events.emit("run:output", output("run_a", "1\n"));
    now = 2_500;
    events.emit("run:output", output("run_b", "not mine\n"));
    events.emit("run:output", output("run_a", "2\nhalf"));
    events.emit("run:output", output("run_a", "\r50%\r100%"));
    stop();
    events.emit("run:output", output("run_a", "after\n"));
    expect(seen.map((p) => p.progress)).toEqual([2, 8, 17]);
    expect(seen[0]?.message).toBe("0.0s, 2 bytes, 1 line: 1");
    expect(seen[1]?.message).toBe("1.5s, 8 bytes, 2 lines: half");
    expect(seen[2]?.message).toBe("1.5s, 17 bytes, 2 lines: 100%");
  });
});
