import { describe, expect, it } from "vitest";
import { RunnerMetrics } from "./runner-metrics";

const metrics = () => new RunnerMetrics({ sessions: async () => 0, runsByOutcome: async () => ({}), approvalsPending: async () => 0 });

/** A sample's value in the text a scrape returns (`name{labels} value`). */
function sample(text: string, line: string): number | undefined {
  const found = text.split("\n").find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe("RunnerMetrics", () => {
  it("counts every tool call by tool and result, with its latency, as a scrape reads them", async () => {
    const m = metrics();
    m.toolCall("read_file", "ok", 2);
    m.toolCall("read_file", "ok", 40);
    m.toolCall("bash", "denied", 1);
    const text = await m.registry.metrics();
    expect(sample(text, 'berth_tool_calls_total{tool="read_file",result="ok"}')).toBe(2);
    expect(sample(text, 'berth_tool_calls_total{tool="bash",result="denied"}')).toBe(1);
    expect(sample(text, 'berth_tool_call_duration_seconds_count{tool="read_file"}')).toBe(2);
    expect(sample(text, 'berth_tool_call_duration_seconds_bucket{le="0.005",tool="read_file"}')).toBe(1);
    expect(sample(text, 'berth_tool_call_duration_seconds_sum{tool="read_file"}')).toBeCloseTo(0.042);
    // A second scrape counts nothing twice.
    m.toolCall("read_file", "error", 3);
    const again = await m.registry.metrics();
    expect(sample(again, 'berth_tool_calls_total{tool="read_file",result="ok"}')).toBe(2);
    expect(sample(again, 'berth_tool_calls_total{tool="read_file",result="error"}')).toBe(1);
    expect(sample(again, 'berth_tool_call_duration_seconds_count{tool="read_file"}')).toBe(3);
  });

  it("counts what waits once many calls wait, so a runner nobody scrapes holds no more than that", async () => {
    const m = metrics();
    for (let i = 0; i < 5000; i++) m.toolCall("grep", "ok", 1);
    expect((m as unknown as { pendingCalls: unknown[] }).pendingCalls.length).toBeLessThan(1024);
    expect(sample(await m.registry.metrics(), 'berth_tool_calls_total{tool="grep",result="ok"}')).toBe(5000);
  });
});
