import { describe, expect, it } from "vitest";
import { findMatches, lineFromHash, lineIndexOf, parseLog, splitCombined, visibleRows } from "./log-lines";

const out = (text: string) => ({ stream: "stdout" as const, text });
const err = (text: string) => ({ stream: "stderr" as const, text });

describe("parseLog", () => {
  it("numbers lines, keeps colours and marks the ones stderr wrote", () => {
    const log = parseLog([out("one\n\u001b[32mgreen\u001b[0m\n"), err("oops\n"), out("last")]);
    expect(log.lines.map((l) => [l.number, l.text, l.stderr])).toEqual([
      [1, "one", false],
      [2, "green", false],
      [3, "oops", true],
      [4, "last", false],
    ]);
    expect(log.lines[1]!.spans[0]!.style.fg).toBe("#0dbc79");
  });

  it("collapses a \\r progress bar to its last frame", () => {
    const log = parseLog([out("start\n"), out("10%\r50%\r"), out("100%\ndone\n")]);
    expect(log.lines.map((l) => l.text)).toEqual(["start", "100%", "done"]);
  });

  it("folds ::group:: sections; ::endgroup:: is not shown but keeps its number", () => {
    const log = parseLog([out("before\n::group::Install deps\na\nb\n::endgroup::\nafter\n")]);
    expect(log.groups).toEqual([{ name: "Install deps", start: 1, end: 4 }]);
    expect(log.lines.map((l) => [l.number, l.text, l.group ?? null, l.header ?? false])).toEqual([
      [1, "before", null, false],
      [2, "::group::Install deps", 0, true],
      [3, "a", 0, false],
      [4, "b", 0, false],
      [6, "after", null, false],
    ]);
    const rows = (collapsed: number[]) => visibleRows(log, new Set(collapsed)).map((i) => log.lines[i]!.number);
    expect(rows([0])).toEqual([1, 2, 6]);
    expect(rows([])).toEqual([1, 2, 3, 4, 6]);
  });

  it("ends an open group at the next header and at the end of the log", () => {
    const log = parseLog([out("::group::one\nx\n::group::two\ny\n")]);
    expect(log.groups.map((g) => [g.name, g.start, g.end])).toEqual([
      ["one", 0, 2],
      ["two", 2, 4],
    ]);
  });

  it("parses a 100k-line coloured log", () => {
    const text = Array.from({ length: 100_000 }, (_, i) => `\u001b[3${i % 8}mline ${i + 1}\u001b[0m\n`).join("");
    const log = parseLog([out(text)]);
    expect(log.lines).toHaveLength(100_000);
    expect(log.lines[99_999]!.text).toBe("line 100000");
  });
});

describe("search and permalinks", () => {
  const log = parseLog([out("Alpha\nbeta\n::group::g\nALPHA two\n::endgroup::\ngamma\n")]);
  it("finds lines case-insensitively, none for an empty query", () => {
    expect(findMatches(log, "alpha").map((i) => log.lines[i]!.number)).toEqual([1, 4]);
    expect(findMatches(log, "")).toEqual([]);
  });
  it("reads #L<n> and maps a number to its row (an endgroup line to the next one)", () => {
    expect(lineFromHash("#L3")).toBe(3);
    expect(lineFromHash("#L0")).toBeNull();
    expect(lineFromHash("#foo")).toBeNull();
    expect(log.lines[lineIndexOf(log, 4)]!.text).toBe("ALPHA two");
    expect(log.lines[lineIndexOf(log, 5)]!.text).toBe("gamma");
    expect(lineIndexOf(log, 99)).toBe(-1);
  });
});

describe("splitCombined", () => {
  it("gives each piece of the combined log back to the stream that wrote it", () => {
    const chunks = splitCombined("a\nERR\nb\nmore err\nc\n", "a\nb\nc\n", "ERR\nmore err\n");
    expect(chunks).toEqual([out("a\n"), err("ERR\n"), out("b\n"), err("more err\n"), out("c\n")]);
  });
  it("decides a shared prefix by the stream that matches longer", () => {
    expect(splitCombined("error: x\nerror: y\n", "error: y\n", "error: x\n")).toEqual([
      err("error: x\n"),
      out("error: y\n"),
    ]);
  });
  it("keeps the rest as stdout when the logs do not fit together", () => {
    expect(splitCombined("abc", "a", "")).toEqual([out("abc")]);
  });
});
