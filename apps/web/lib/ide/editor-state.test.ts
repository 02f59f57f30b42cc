import { describe, expect, it } from "vitest";
import { EDITOR_STATE_MAX_TABS, editorStateKey, parseEditorState, serializeEditorState, settledRestores } from "./editor-state";

describe("editor state", () => {
  it("round-trips tabs, the active tab and each tab's cursor and scroll", () => {
    const state = {
      tabs: [{ path: "a.py", view: { line: 3, column: 5, scrollTop: 120, scrollLeft: 0 } }, { path: "src/b.ts" }],
      active: "a.py",
    };
    expect(parseEditorState(serializeEditorState(state))).toEqual(state);
    expect(editorStateKey("s1")).toBe("berth.editor.s1");
  });

  it("tolerates garbage: nothing usable is null, a bad entry or view is dropped, not the whole state", () => {
    expect(parseEditorState(null)).toBeNull();
    expect(parseEditorState("{not json")).toBeNull();
    expect(parseEditorState('{"tabs":3}')).toBeNull();
    expect(
      parseEditorState(
        JSON.stringify({
          tabs: [
            { path: "" },
            { path: 7 },
            null,
            { path: "ok.txt", view: { line: 0, column: 1, scrollTop: 0, scrollLeft: 0 } },
            { path: "ok.txt" },
          ],
          active: "gone.txt",
        }),
      ),
    ).toEqual({ tabs: [{ path: "ok.txt" }], active: "ok.txt" });
  });

  it("keeps at most the newest tabs and never names an active tab that is not open", () => {
    const tabs = Array.from({ length: EDITOR_STATE_MAX_TABS + 5 }, (_, i) => ({ path: `f${i}.txt` }));
    const parsed = parseEditorState(serializeEditorState({ tabs, active: "f0.txt" }));
    expect(parsed?.tabs).toHaveLength(EDITOR_STATE_MAX_TABS);
    expect(parsed?.tabs[0]?.path).toBe("f5.txt");
    expect(parsed?.active).toBe(`f${EDITOR_STATE_MAX_TABS + 4}.txt`);
  });

  it("a restored tab that opened stops being watched; one that ended in an error is dropped; one still loading waits", () => {
    const tabs = [
      { path: "a.py", kind: "text" },
      { path: "gone.py", kind: "error" },
      { path: "big.bin", kind: "binary" },
      { path: "slow.py", kind: "loading" },
      { path: "mine.py", kind: "error" },
    ];
    expect(settledRestores(tabs, new Set(["a.py", "gone.py", "big.bin", "slow.py"]))).toEqual({ opened: ["a.py", "big.bin"], failed: ["gone.py"] });
  });
});
