import { describe, expect, it } from "vitest";
import type { ToolResult } from "@berth/protocol";
import { NO_TABS, dirtyPaths, editableTab, fileReadOf, pathsToReread, reduceEditorTabs, type EditorTabs, type EditorTabsAction } from "./editor-tabs";

const run = (...actions: EditorTabsAction[]) => actions.reduce(reduceEditorTabs, NO_TABS);
const text = (content: string, sha256 = "sha-1") => ({ ok: true as const, content, truncated: false, sha256 });
const paths = (state: EditorTabs) => state.tabs.map((t) => t.path);

describe("editor tabs", () => {
  it("opening shows a file at once as loading, and opening it again only switches to it", () => {
    const state = run({ type: "open", path: "a.py" }, { type: "open", path: "b.py" }, { type: "open", path: "a.py" });
    expect(paths(state)).toEqual(["a.py", "b.py"]);
    expect(state.activePath).toBe("a.py");
    expect(state.tabs[1]?.kind).toBe("loading");
  });

  it("a read fills the tab; typing makes it dirty, saving makes it clean, and only text tabs are ever dirty", () => {
    let state = run({ type: "open", path: "a.py" }, { type: "read", path: "a.py", read: text("x = 1\n") });
    expect(editableTab(state, "a.py")).toMatchObject({ kind: "text", saved: "x = 1\n", sha256: "sha-1" });
    state = reduceEditorTabs(state, { type: "draft", path: "a.py", text: "x = 2\n" });
    expect([...dirtyPaths(state.tabs)]).toEqual(["a.py"]);
    // Saved what was typed up to the save; a keystroke after it stays unsaved.
    state = reduceEditorTabs(state, { type: "saved", path: "a.py", text: "x = 2\n", sha256: "sha-2" });
    expect(dirtyPaths(state.tabs).size).toBe(0);
    expect(state.tabs[0]?.sha256).toBe("sha-2");
    state = run({ type: "open", path: "pic.png" }, { type: "read", path: "pic.png", read: { ok: false, kind: "binary", message: "not UTF-8" } });
    expect(dirtyPaths(state.tabs).size).toBe(0);
    expect(editableTab(state, "pic.png")).toBeNull();
  });

  it("a truncated file is not editable, and reset replaces both versions", () => {
    let state = run({ type: "open", path: "big.log" }, { type: "read", path: "big.log", read: { ...text("head"), truncated: true } });
    expect(editableTab(state, "big.log")).toBeNull();
    state = run({ type: "open", path: "a.py" }, { type: "read", path: "a.py", read: text("mine") }, { type: "draft", path: "a.py", text: "mine, edited" });
    state = reduceEditorTabs(state, { type: "reset", path: "a.py", text: "disk", sha256: "sha-disk" });
    expect(state.tabs[0]).toMatchObject({ saved: "disk", draft: "disk", sha256: "sha-disk" });
  });

  it("closing the active tab shows the last one left; dropping a restored tab shows the first other", () => {
    const three = run({ type: "open", path: "a" }, { type: "open", path: "b" }, { type: "open", path: "c" }, { type: "activate", path: "b" });
    expect(reduceEditorTabs(three, { type: "close", path: "b" })).toEqual({ tabs: [three.tabs[0], three.tabs[2]], activePath: "c" });
    expect(reduceEditorTabs(three, { type: "drop", path: "b" }).activePath).toBe("a");
    expect(reduceEditorTabs(three, { type: "close", path: "a" }).activePath).toBe("b");
    expect(run({ type: "open", path: "a" }, { type: "close", path: "a" })).toEqual(NO_TABS);
  });

  it("a request that failed leaves the tab in error with the message", () => {
    const state = run({ type: "open", path: "a.py" }, { type: "failed", path: "a.py", message: "network down" });
    expect(state.tabs[0]).toMatchObject({ kind: "error", message: "network down" });
  });
});

describe("fileReadOf", () => {
  const failed = (code: string): ToolResult => ({ ok: false, output: `read_file: ${code}`, error: { code, message: `it is ${code}` } }) as ToolResult;

  it("sorts read_file's refusals into what the tab shows", () => {
    expect(fileReadOf(failed("binary_file"))).toEqual({ ok: false, kind: "binary", message: "it is binary_file" });
    expect(fileReadOf(failed("invalid_utf8"))).toMatchObject({ kind: "binary" });
    expect(fileReadOf(failed("too_large"))).toMatchObject({ kind: "too_large" });
    expect(fileReadOf(failed("not_found"))).toMatchObject({ kind: "error", message: "it is not_found" });
  });

  it("takes the content, the truncation and the sha256 of a read", () => {
    const result = { ok: true, output: "", details: { content: "hi", truncated: true, sha256: "abc" } } as ToolResult;
    expect(fileReadOf(result)).toEqual({ ok: true, content: "hi", truncated: true, sha256: "abc" });
    expect(fileReadOf({ ok: true, output: "" } as ToolResult)).toEqual({ ok: true, content: "", truncated: false, sha256: null });
  });
});

describe("pathsToReread", () => {
  it("re-reads the open files named, or every open file after '.'", () => {
    expect(pathsToReread(["a.py", "other.py"], ["a.py", "b.py"])).toEqual(["a.py"]);
    expect(pathsToReread(["x", "."], ["a.py", "b.py"])).toEqual(["a.py", "b.py"]);
    expect(pathsToReread([], ["a.py"])).toEqual([]);
  });
});
