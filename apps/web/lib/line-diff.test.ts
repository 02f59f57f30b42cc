import { describe, expect, it } from "vitest";
import { diffLines, foldUnchanged } from "./line-diff";

const show = (before: string, after: string) =>
  diffLines(before, after)!.map((l) => `${l.kind === "add" ? "+" : l.kind === "del" ? "-" : " "}${l.text}`);

describe("diffLines", () => {
  it("keeps, adds and removes lines as the shortest edit", () => {
    expect(show("a\nb\nc\n", "a\nB\nc\nd\n")).toEqual([" a", "-b", "+B", " c", "+d"]);
    expect(show("", "new\n")).toEqual(["+new"]);
    expect(show("gone\n", "")).toEqual(["-gone"]);
    expect(show("same\n", "same\n")).toEqual([" same"]);
  });

  it("numbers lines on both sides", () => {
    const lines = diffLines("a\nb\n", "x\na\nb\n")!;
    expect(lines).toEqual([
      { kind: "add", text: "x", newNo: 1 },
      { kind: "same", text: "a", oldNo: 1, newNo: 2 },
      { kind: "same", text: "b", oldNo: 2, newNo: 3 },
    ]);
  });
});

describe("foldUnchanged", () => {
  it("folds long unchanged stretches to their count, keeping three lines of context around a change", () => {
    const before = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const after = before.replace("line 50\n", "line fifty\n");
    const rows = foldUnchanged(diffLines(before, after)!);
    expect(rows[0]).toEqual({ kind: "fold", count: 46 });
    expect(rows.filter((r) => r.kind === "add" || r.kind === "del")).toHaveLength(2);
    expect(rows[rows.length - 1]).toEqual({ kind: "fold", count: 47 });
    expect(rows).toHaveLength(1 + 3 + 2 + 3 + 1);
  });
});
