// The IDE's pane sizes, remembered per browser in a cookie rather than localStorage so the server renders
// the page at the sizes the developer left it (no jump after hydration, and Monaco is laid out once).

export const IDE_LAYOUT_COOKIE = "berth_ide_layout";

export type IdeLayout = {
  /** File tree width, px. */
  sidebar: number;
  /** Bottom panel (terminal, output, runs) height, px; null until the developer sets it (then 36% of the window). */
  bottom: number | null;
};

export const DEFAULT_IDE_LAYOUT: IdeLayout = { sidebar: 240, bottom: null };

/** What a stored size may be, whatever the window; the page narrows these to what fits (ideLayoutLimits). */
export const SIDEBAR_RANGE = { min: 160, max: 640 } as const;
export const BOTTOM_RANGE = { min: 120, max: 2000 } as const;

function sizeIn(value: string | null, range: { min: number; max: number }): number | null {
  if (value === null || !/^\d{1,4}$/.test(value)) return null;
  const size = Number(value);
  return size >= range.min && size <= range.max ? size : null;
}

/** Reads the cookie's value (`sidebar=240&bottom=320`); anything missing, malformed or out of range is the default. */
export function parseIdeLayout(value: string | undefined): IdeLayout {
  if (!value) return DEFAULT_IDE_LAYOUT;
  const params = new URLSearchParams(value);
  return {
    sidebar: sizeIn(params.get("sidebar"), SIDEBAR_RANGE) ?? DEFAULT_IDE_LAYOUT.sidebar,
    bottom: sizeIn(params.get("bottom"), BOTTOM_RANGE) ?? DEFAULT_IDE_LAYOUT.bottom,
  };
}

export function formatIdeLayout(layout: IdeLayout): string {
  const params = new URLSearchParams({ sidebar: String(Math.round(layout.sidebar)) });
  if (layout.bottom !== null) params.set("bottom", String(Math.round(layout.bottom)));
  return params.toString();
}

/** How large each pane may be in a window of this size: the editor keeps at least 320 px wide and 160 px high. */
export function ideLayoutLimits(window: { width: number; height: number }) {
  return {
    sidebar: { min: SIDEBAR_RANGE.min, max: Math.min(SIDEBAR_RANGE.max, window.width - 320) },
    // The top bar, the IDE toolbar and the editor's tabs take about 130 px above the editor (globals.css
    // caps .bottom-panel at the same 100vh - 290px).
    bottom: { min: BOTTOM_RANGE.min, max: Math.min(BOTTOM_RANGE.max, window.height - 130 - 160) },
  };
}

/** The bottom panel's height before the developer sets one: 36% of the window, within the limits (as globals.css has it). */
export function defaultBottomHeight(window: { width: number; height: number }): number {
  const { min, max } = ideLayoutLimits(window).bottom;
  return Math.round(Math.min(Math.max(window.height * 0.36, min), Math.max(min, max)));
}

/** Remembers the layout for a year, for every page of this origin (the IDE of any session). */
export function saveIdeLayout(layout: IdeLayout): void {
  document.cookie = `${IDE_LAYOUT_COOKIE}=${formatIdeLayout(layout)}; path=/; max-age=${365 * 24 * 60 * 60}; samesite=lax`;
}
