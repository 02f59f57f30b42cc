import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { AgentConnection } from "./agent-connection";
import { LogBudget, boundLine } from "./log-budget";

describe("LogBudget", () => {
  it("passes at most maxLines per interval, then one summary line when the interval ends", () => {
    let now = 0;
    const lines: string[] = [];
    const budget = new LogBudget((l) => lines.push(l), {
      maxLines: 3,
      intervalMs: 1000,
      maxLineChars: 50,
      now: () => now,
    });
    for (let i = 0; i < 10; i++) budget.write(`line ${i}`);
    expect(lines).toEqual(["line 0", "line 1", "line 2"]);
    now = 1000;
    budget.write("line 10");
    expect(lines.slice(3)).toEqual(["suppressed 7 lines (limit 3 lines per 1 s)", "line 10"]);
    budget.flush();
    expect(lines).toHaveLength(5);
  });

  it("states what was suppressed on flush (the container went away)", () => {
    const lines: string[] = [];
    const budget = new LogBudget((l) => lines.push(l), { maxLines: 1, intervalMs: 60_000, maxLineChars: 50 });
    budget.write("a");
    budget.write("b");
    budget.write("c");
    budget.flush();
    expect(lines).toEqual(["a", "suppressed 2 lines (limit 1 lines per 60 s)"]);
  });

  it("escapes control characters and bidi overrides and cuts long lines", () => {
    expect(boundLine("ok\nFORGED line\r\x1b[31mred\x00\u202e", 100)).toBe(
      "ok\\x0aFORGED line\\x0d\\x1b[31mred\\x00\\u202e",
    );
    expect(boundLine("x".repeat(500), 300)).toBe(`${"x".repeat(300)}… (200 more chars)`);
  });
});

describe("AgentConnection protocol faults", () => {
  it("turns 5000 garbage lines from a container into at most 20 bounded events and one summary", () => {
    const stdout = new PassThrough();
    const conn = new AgentConnection({ sessionId: "s1", stdin: new PassThrough(), stdout, defaultTimeoutMs: 1000 });
    const faults: string[] = [];
    conn.on("protocol-error", (m) => faults.push(m));
    const garbage = Array.from({ length: 5000 }, (_, i) => `garbage ${i} \x1b]0;pwned\x07 ${"y".repeat(1000)}`);
    stdout.write(`${garbage.join("\n")}\n`);
    stdout.end();
    conn.fail(new Error("gone"));
    expect(faults).toHaveLength(21);
    expect(faults.at(-1)).toBe("suppressed 4980 lines (limit 20 lines per 10 s)");
    for (const f of faults) {
      expect(f.length).toBeLessThan(400);
      expect([...f].some((c) => c.charCodeAt(0) < 0x20)).toBe(false);
    }
  });
});
