import { describe, expect, it } from "vitest";
import { shortcutFor, shortcutLabel, type KeyPress } from "./keymap";

const press = (key: string, mods: Partial<KeyPress> = {}): KeyPress => ({ key, code: "", ctrlKey: false, metaKey: false, shiftKey: false, ...mods });

describe("IDE keymap", () => {
  it("Ctrl and Cmd both save, run, open files and search", () => {
    for (const mod of [{ ctrlKey: true }, { metaKey: true }]) {
      expect(shortcutFor(press("s", mod))).toBe("save");
      expect(shortcutFor(press("S", { ...mod, shiftKey: true }))).toBe("save");
      expect(shortcutFor(press("Enter", mod))).toBe("run");
      expect(shortcutFor(press("p", mod))).toBe("quick-open");
      expect(shortcutFor(press("P", { ...mod, shiftKey: true }))).toBe("commands");
      expect(shortcutFor(press("F", { ...mod, shiftKey: true }))).toBe("search");
    }
  });

  it("the terminal is Ctrl+` only, by key or by the key's position on other layouts", () => {
    expect(shortcutFor(press("`", { ctrlKey: true }))).toBe("terminal");
    expect(shortcutFor(press("^", { ctrlKey: true, code: "Backquote" }))).toBe("terminal");
    expect(shortcutFor(press("`", { metaKey: true }))).toBeNull();
  });

  it("F1 opens the commands without a modifier; plain typing is nobody's shortcut", () => {
    expect(shortcutFor(press("F1"))).toBe("commands");
    expect(shortcutFor(press("s"))).toBeNull();
    expect(shortcutFor(press("Enter"))).toBeNull();
    expect(shortcutFor(press("f", { ctrlKey: true }))).toBeNull();
  });

  it("labels the keys as the palette shows them", () => {
    expect(shortcutLabel("save")).toBe("Ctrl+S");
    expect(shortcutLabel("terminal")).toBe("Ctrl+`");
    expect(shortcutLabel("search")).toBe("Ctrl+Shift+F");
  });
});
