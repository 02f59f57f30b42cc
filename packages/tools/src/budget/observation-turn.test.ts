import { describe, expect, it } from "vitest";
import type { ToolResult } from "@berth/protocol";
import { DEFAULT_OBSERVATION_LIMITS, OBSERVING_TOOLS, UNOBSERVED_LIMITS, observationCapOf } from "./observation-limits";
import { ObservationTurn } from "./observation-turn";
import { noticeOf } from "./truncation-notice";

const grepResult = (n: number): ToolResult => {
  const details = {
    matches: Array.from({ length: n }, (_, i) => ({
      file: `src/file-${i}.ts`,
      line: i + 1,
      content: `const value${i} = "needle";`,
    })),
    filesMatched: n,
    totalMatches: n,
    truncated: false,
  };
  return { ok: true, output: JSON.stringify(details), details };
};

function saver() {
  const saved = new Map<string, string>();
  return {
    saved,
    save: async (_tool: string, text: string) => {
      const ref = `ovf_${String(saved.size).padStart(24, "0")}`;
      saved.set(ref, text);
      return ref;
    },
  };
}

describe("ObservationTurn", () => {
  it("passes a result under its cap untouched and draws its bytes from the pool", async () => {
    const turn = new ObservationTurn({ poolBytes: 100_000, caps: { grep: 50_000 } });
    const result = grepResult(3);
    const fitted = await turn.fit("grep", 50_000, result, saver().save);
    expect(fitted).toBe(result);
    expect(turn.view().usedBytes).toBe(Buffer.byteLength(result.output));
  });

  it("cuts a result over its cap to JSON that parses, keeps its shape, and carries one notice with the ref", async () => {
    const turn = new ObservationTurn({ poolBytes: 100_000, caps: { grep: 2048 } });
    const store = saver();
    const full = grepResult(200);
    const fitted = await turn.fit("grep", 2048, full, store.save);
    expect(Buffer.byteLength(fitted.output)).toBeLessThanOrEqual(2048);
    const parsed = JSON.parse(fitted.output) as {
      matches: unknown[];
      truncated: boolean;
      notice: string;
      totalMatches: number;
    };
    expect(parsed.truncated).toBe(true);
    expect(parsed.totalMatches).toBe(200);
    expect(parsed.matches.length).toBeGreaterThan(0);
    expect(parsed.matches.length).toBeLessThan(200);
    expect(fitted.details).toEqual(parsed);
    const notice = noticeOf(fitted.output)!;
    expect(notice.split("\n")).toHaveLength(1);
    expect(fitted.output.match(/ref=ovf_/g)).toHaveLength(1);
    const [ref] = [...store.saved.keys()];
    expect(notice).toContain(`ref=${ref}`);
    expect(notice).toContain(`showed ${Buffer.byteLength(fitted.output)} of ${Buffer.byteLength(full.output)} bytes`);
    expect(notice).toContain(`next: context {"scope":"recall","ref":"${ref}"}`);
    expect(store.saved.get(ref!)).toBe(full.output);
  });

  it("cuts to what is left of the pool when that is less than the cap", async () => {
    const turn = new ObservationTurn({ poolBytes: 5000, caps: { grep: 50_000 } });
    await turn.fit("grep", 50_000, grepResult(40), saver().save);
    const left = turn.remaining();
    const fitted = await turn.fit("grep", 50_000, grepResult(200), saver().save);
    expect(Buffer.byteLength(fitted.output)).toBeLessThanOrEqual(left);
    expect(noticeOf(fitted.output)).toMatch(new RegExp(`${left} bytes left of this turn's pool of 5000`));
  });

  it("answers a spent pool with a notice three times, then an error on the 4th in a row", async () => {
    const turn = new ObservationTurn({ poolBytes: 1500, caps: { grep: 50_000 } });
    await turn.fit("grep", 50_000, grepResult(200), saver().save);
    expect(turn.remaining()).toBeLessThan(1024);
    const answers = [1, 2, 3, 4].map(() => turn.refusal("grep")!);
    expect(answers.slice(0, 3).every((answer) => answer.ok)).toBe(true);
    expect(JSON.parse(answers[0]!.output).notice).toMatch(/^budget exhausted: grep did not run/);
    expect(answers[3]!.ok).toBe(false);
    expect(answers[3]!.error?.code).toBe("budget_exhausted");
    expect(answers[3]!.error?.message).toMatch(/call 4 in a row/);
  });

  it("never cuts a failure (its message is read whole)", async () => {
    const turn = new ObservationTurn({ poolBytes: 100_000, caps: { grep: 1024 } });
    const failure: ToolResult = {
      ok: false,
      output: "x".repeat(3000),
      error: { code: "bad", message: "x".repeat(3000) },
    };
    expect(await turn.fit("grep", 1024, failure, saver().save)).toBe(failure);
  });

  it("cuts a long string field (read_file content) at a line end", async () => {
    const turn = new ObservationTurn({ poolBytes: 100_000, caps: { read_file: 1200 } });
    const content = Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const details = { path: "a.txt", content, startLine: 1, endLine: 200, totalLines: 200, truncated: false };
    const fitted = await turn.fit(
      "read_file",
      1200,
      { ok: true, output: JSON.stringify(details), details },
      saver().save,
    );
    const parsed = JSON.parse(fitted.output) as typeof details;
    expect(parsed.truncated).toBe(true);
    expect(parsed.content.endsWith("\n")).toBe(true);
    expect(content.startsWith(parsed.content)).toBe(true);
  });
});

describe("a person's turn (UNOBSERVED_LIMITS)", () => {
  it("caps none of the observing tools, so the IDE's tree and editor get whole answers", () => {
    for (const tool of OBSERVING_TOOLS) expect(observationCapOf(UNOBSERVED_LIMITS, tool, { op: "find" })).toBeUndefined();
    expect(observationCapOf(DEFAULT_OBSERVATION_LIMITS, "glob", {})).toBe(DEFAULT_OBSERVATION_LIMITS.caps.glob);
  });
});
