import { afterEach, describe, expect, it, vi } from "vitest";
import { ProgressReporter, type ProgressNotification } from "./progress-reporter";

afterEach(() => vi.useRealTimers());

function reporter() {
  vi.useFakeTimers();
  const sent: ProgressNotification["params"][] = [];
  const progress = new ProgressReporter("tok", async (n) => void sent.push(n.params), 250, () => Date.now());
  return { progress, sent };
}

describe("ProgressReporter", () => {
  it("sends at most one notification per 250 ms, the latest update of each interval, with the caller's token", () => {
    const { progress, sent } = reporter();
    for (let i = 1; i <= 20; i++) {
      progress.report({ progress: i * 10, message: `line ${i}` });
      vi.advanceTimersByTime(50); // 20 updates over 1 s
    }
    vi.advanceTimersByTime(250);
    expect(sent.length).toBeLessThanOrEqual(5);
    expect(sent.length).toBeGreaterThanOrEqual(4);
    expect(sent.every((p) => p.progressToken === "tok")).toBe(true);
    expect(sent.at(-1)).toMatchObject({ progress: 200, message: "line 20" });
  });

  it("keeps progress increasing whatever mix of figures and heartbeats reports it", () => {
    const { progress, sent } = reporter();
    progress.report({ progress: 5 });
    vi.advanceTimersByTime(300);
    progress.beat("waiting");
    vi.advanceTimersByTime(300);
    progress.report({ progress: 3, total: 4 }); // an upstream figure below what was sent
    vi.advanceTimersByTime(300);
    expect(sent.map((p) => p.progress)).toEqual([5, 6, 7]);
    // A total below the progress sent would be a lie: left out.
    expect(sent[2]).not.toHaveProperty("total");
  });

  it("skips a heartbeat when something was sent within its quiet interval", () => {
    const { progress, sent } = reporter();
    progress.report({ progress: 10 });
    vi.advanceTimersByTime(5_000);
    progress.beat("running bash", 10_000);
    vi.advanceTimersByTime(6_000);
    progress.beat("running bash", 10_000);
    vi.advanceTimersByTime(300);
    expect(sent.map((p) => [p.progress, p.message])).toEqual([[10, undefined], [11, "running bash"]]);
  });

  it("sends nothing once the call has ended, not even an update held by the throttle", () => {
    const { progress, sent } = reporter();
    progress.report({ progress: 1 });
    progress.report({ progress: 2 });
    progress.close();
    progress.report({ progress: 3 });
    vi.advanceTimersByTime(1000);
    expect(sent.map((p) => p.progress)).toEqual([1]);
  });
});
