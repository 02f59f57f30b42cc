import { describe, expect, it } from "vitest";
import { DEFAULT_IDE_LAYOUT, defaultBottomHeight, formatIdeLayout, ideLayoutLimits, parseIdeLayout } from "./ide-layout";

describe("IDE layout cookie", () => {
  it("round-trips the sizes a developer set", () => {
    const layout = { sidebar: 312, bottom: 420 };
    expect(formatIdeLayout(layout)).toBe("sidebar=312&bottom=420");
    expect(parseIdeLayout(formatIdeLayout(layout))).toEqual(layout);
  });

  it("keeps the bottom panel at its default until it was resized", () => {
    expect(formatIdeLayout({ sidebar: 200, bottom: null })).toBe("sidebar=200");
    expect(parseIdeLayout("sidebar=200")).toEqual({ sidebar: 200, bottom: null });
  });

  it("falls back to the default for each size that is missing, malformed or out of range", () => {
    expect(parseIdeLayout(undefined)).toEqual(DEFAULT_IDE_LAYOUT);
    expect(parseIdeLayout("")).toEqual(DEFAULT_IDE_LAYOUT);
    expect(parseIdeLayout("sidebar=abc&bottom=-5")).toEqual(DEFAULT_IDE_LAYOUT);
    expect(parseIdeLayout("sidebar=20&bottom=300")).toEqual({ sidebar: DEFAULT_IDE_LAYOUT.sidebar, bottom: 300 });
    expect(parseIdeLayout("sidebar=300.5&bottom=99999")).toEqual(DEFAULT_IDE_LAYOUT);
    expect(parseIdeLayout("%%%;sidebar=300")).toEqual({ sidebar: DEFAULT_IDE_LAYOUT.sidebar, bottom: null });
  });

  it("leaves the editor at least 320 px wide and 160 px high in a small window", () => {
    const limits = ideLayoutLimits({ width: 800, height: 600 });
    expect(limits.sidebar).toEqual({ min: 160, max: 480 });
    expect(limits.bottom).toEqual({ min: 120, max: 310 });
    expect(ideLayoutLimits({ width: 4000, height: 3000 }).sidebar.max).toBe(640);
  });

  it("starts the bottom panel at 36% of the window, within the same limits", () => {
    expect(defaultBottomHeight({ width: 1440, height: 1000 })).toBe(360);
    expect(defaultBottomHeight({ width: 1440, height: 2400 })).toBe(864);
    expect(defaultBottomHeight({ width: 800, height: 300 })).toBe(120);
  });
});
