"use client";
import { useEffect, useState, type CSSProperties } from "react";
import { BOTTOM_RANGE, DEFAULT_IDE_LAYOUT, SIDEBAR_RANGE, defaultBottomHeight, ideLayoutLimits, saveIdeLayout, type IdeLayout } from "@/lib/ide/ide-layout";

/**
 * The file tree's width and the bottom panel's height: dragged or moved with the keyboard on their
 * splitters, kept within what the window leaves the editor, and remembered for the next page load
 * (lib/ide/ide-layout.ts). The bottom panel is 36% of the window until it is first resized.
 */
export function usePaneSizes(initial: IdeLayout) {
  const [layout, setLayout] = useState(initial);
  // Read after mount (the server does not know the window); until then the splitters only need some range.
  const [windowSize, setWindowSize] = useState<{ width: number; height: number } | null>(null);
  useEffect(() => {
    const measure = () => setWindowSize({ width: window.innerWidth, height: window.innerHeight });
    measure();
    window.addEventListener("resize", measure);
    return () => window.removeEventListener("resize", measure);
  }, []);
  const limits = windowSize ? ideLayoutLimits(windowSize) : { sidebar: SIDEBAR_RANGE, bottom: BOTTOM_RANGE };
  const bottomDefault = windowSize ? defaultBottomHeight(windowSize) : BOTTOM_RANGE.min;
  return {
    style: {
      "--sidebar-w": `${layout.sidebar}px`,
      ...(layout.bottom !== null ? { "--bottom-h": `${layout.bottom}px` } : {}),
    } as CSSProperties,
    sidebar: {
      size: layout.sidebar,
      ...limits.sidebar,
      initial: DEFAULT_IDE_LAYOUT.sidebar,
      onResize: (sidebar: number) => setLayout((old) => ({ ...old, sidebar })),
      onCommit: (sidebar: number) => saveIdeLayout({ ...layout, sidebar }),
    },
    bottom: {
      size: layout.bottom ?? bottomDefault,
      ...limits.bottom,
      initial: bottomDefault,
      onResize: (bottom: number) => setLayout((old) => ({ ...old, bottom })),
      onCommit: (bottom: number) => saveIdeLayout({ ...layout, bottom }),
    },
  };
}
