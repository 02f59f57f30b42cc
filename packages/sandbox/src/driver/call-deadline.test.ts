import { describe, expect, it } from "vitest";
import { callDeadlineMs } from "./call-deadline";

describe("callDeadlineMs", () => {
  it("uses the driver's timeout for a tool without a clock", () => {
    expect(callDeadlineMs({ tool: "read_file", args: { path: "a" }, callId: "c" }, 60_000)).toBe(60_000);
  });

  it("lets a tool reach its own timeout and report it", () => {
    expect(callDeadlineMs({ tool: "bash", args: { command: "x", timeoutMs: 300_000 }, callId: "c" }, 60_000)).toBe(
      310_000,
    );
  });

  it("knows run_script runs up to 600 s by default", () => {
    expect(callDeadlineMs({ tool: "run_script", args: {}, callId: "c" }, 60_000)).toBe(610_000);
  });

  it("never goes below the driver's timeout", () => {
    expect(callDeadlineMs({ tool: "bash", args: { timeoutMs: 5 }, callId: "c" }, 60_000)).toBe(60_000);
  });
});
