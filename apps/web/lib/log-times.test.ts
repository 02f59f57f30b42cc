import { describe, expect, it } from "vitest";
import { formatLogTime, formatSinceStart, lineTimes } from "./log-times";

describe("lineTimes", () => {
  it("gives each line the time of the chunk its first byte arrived in, counting UTF-8 bytes", () => {
    // "héllo\n" is 7 bytes; the second chunk starts at byte 7, in the middle of nothing.
    const chunks = [
      { stream: "stdout" as const, text: "héllo\nwor" },
      { stream: "stderr" as const, text: "ld\n😀 x\n" },
    ];
    const times = [
      { offset: 0, at: 1000 },
      { offset: 10, at: 2000 }, // "ld\n…" arrived later: line 2 started at byte 7, before it
      { offset: 13, at: 3000 }, // "😀 x\n" (4 + 3 bytes)
    ];
    expect(lineTimes(chunks, times)).toEqual([1000, 1000, 3000, 3000]);
  });

  it("has no time for lines before the first known one, and none at all without times", () => {
    const chunks = [{ stream: "stdout" as const, text: "a\nb\nc\n" }];
    expect(lineTimes(chunks, [{ offset: 2, at: 5 }])).toEqual([undefined, 5, 5, 5]);
    expect(lineTimes(chunks, [])).toEqual([]);
  });
});

describe("formatLogTime", () => {
  it("prints hours to milliseconds, and the time since the run started", () => {
    const at = new Date(2026, 0, 2, 3, 4, 5, 67).getTime();
    expect(formatLogTime(at)).toBe("03:04:05.067");
    expect(formatSinceStart(at, at - 1250)).toBe("+1.250 s");
    expect(formatSinceStart(at, at - 125_000)).toBe("+2 min 5.000 s");
  });
});
