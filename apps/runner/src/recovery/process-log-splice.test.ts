import { describe, expect, it } from "vitest";
import { advance, logStart, splitUnseen, type ProcessLogPosition } from "./process-log-splice";

// The agent's process log as packages/agent ProcessManager writes it: a prefix at each line start, and a newline
// of its own ending a partial line when the other stream cuts in.
const out = (text: string) => ({ stream: "stdout" as const, data: Buffer.from(text) });
const err = (text: string) => ({ stream: "stderr" as const, data: Buffer.from(text) });

function replay(chunks: { stream: "stdout" | "stderr"; data: Buffer }[], from: ProcessLogPosition = logStart()): ProcessLogPosition {
  return chunks.reduce((at, c) => advance(at, c.stream, c.data), from);
}

describe("process log splice", () => {
  it("finds where stored output ends in the agent's log, whatever the chunking", () => {
    // "tw" + "o\n" is one line in the agent's log: one prefix.
    expect(replay([out("one\ntw"), out("o\n")]).bytes).toBe(Buffer.byteLength("[stdout] one\n[stdout] two\n"));
    expect(replay([out("one\n"), out("two\n")])).toEqual(replay([out("one\ntwo\n")]));
    // A partial stdout line cut by stderr: the agent adds a newline, then the stderr prefix.
    expect(replay([out("ab"), err("x\n")]).bytes).toBe(Buffer.byteLength("[stdout] ab\n[stderr] x\n"));
    expect(replay([out("a\n"), err("x\n"), out("b")])).toEqual({ bytes: Buffer.byteLength("[stdout] a\n[stderr] x\n[stdout] b"), atLineStart: false, lastStream: "stdout" });
  });

  it("splits what follows the stored end back into the process's bytes", () => {
    const at = replay([out("count 1\ncount 2\ncou")]);
    const agentLog = Buffer.from("[stdout] count 1\n[stdout] count 2\n[stdout] count 3\n[stdout] count 4\n[stdout] co");
    const split = splitUnseen(at, agentLog.subarray(at.bytes));
    expect(split).toEqual({ ok: true, pieces: [out("nt 3\ncount 4\nco")] });
    // From a line start, a switch of stream is placed exactly (the stored log says how the last line ended).
    const atStart = replay([out("a\n")]);
    expect(splitUnseen(atStart, Buffer.from("[stderr] oops\n[stderr] more"))).toEqual({ ok: true, pieces: [err("oops\nmore")] });
    expect(splitUnseen(atStart, Buffer.alloc(0))).toEqual({ ok: true, pieces: [] });
  });

  it("refuses a switch of stream after a line that ended unseen (its newline may be the agent's)", () => {
    const at = replay([out("a\n")]);
    const mixed = splitUnseen(at, Buffer.from("[stdout] b\n[stderr] c\n"));
    expect(mixed).toMatchObject({ ok: false });
    expect(!mixed.ok && mixed.why).toMatch(/interleave at byte 22/);
    // Stored mid-line: the newline that follows may be the process's or the agent's.
    expect(splitUnseen(replay([out("ab")]), Buffer.from("\n[stderr] c\n"))).toMatchObject({ ok: false });
    expect(splitUnseen(at, Buffer.from("garbage"))).toEqual({ ok: false, why: "the agent's log has no stream prefix at byte 11" });
  });
});
