"use client";
import { useRef, type KeyboardEvent, type PointerEvent } from "react";

export type SplitterProps = {
  /** "columns": a vertical bar that sets the width of the pane before it; "rows": a horizontal bar that sets the height of the pane after it. */
  between: "columns" | "rows";
  /** The pane's size in px, and the range it may take. */
  size: number;
  min: number;
  max: number;
  onResize: (size: number) => void;
  /** Called when a drag or key press ends, with the final size (to remember it). */
  onCommit?: (size: number) => void;
  /** Double-click puts the pane back to this size. */
  initial: number;
  label: string;
  testId?: string;
};

const KEY_STEP = 16;
const KEY_STEP_LARGE = 64;

export const clampSize = (size: number, min: number, max: number) => Math.round(Math.min(Math.max(size, min), Math.max(min, max)));

/**
 * A draggable bar between two panes, also moved with the arrow keys (Shift for larger steps, Home/End
 * for the limits) as a WAI-ARIA window splitter. The pane keeps its size in the parent's state; this only
 * reports new sizes.
 */
export function Splitter({ between, size, min, max, onResize, onCommit, initial, label, testId }: SplitterProps) {
  const drag = useRef<{ start: number; size: number; last: number } | null>(null);
  // Dragging a row splitter up makes the pane below it taller.
  const sign = between === "rows" ? -1 : 1;
  const coordinate = (event: PointerEvent) => (between === "columns" ? event.clientX : event.clientY);

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    event.preventDefault();
    event.currentTarget.setPointerCapture(event.pointerId);
    drag.current = { start: coordinate(event), size, last: size };
    document.body.classList.add(between === "columns" ? "resizing-columns" : "resizing-rows");
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    if (!drag.current) return;
    const next = clampSize(drag.current.size + sign * (coordinate(event) - drag.current.start), min, max);
    if (next !== drag.current.last) {
      drag.current.last = next;
      onResize(next);
    }
  };
  const onPointerEnd = (event: PointerEvent<HTMLDivElement>) => {
    if (!drag.current) return;
    const { last } = drag.current;
    drag.current = null;
    if (event.currentTarget.hasPointerCapture(event.pointerId)) event.currentTarget.releasePointerCapture(event.pointerId);
    document.body.classList.remove("resizing-columns", "resizing-rows");
    onCommit?.(last);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const step = event.shiftKey ? KEY_STEP_LARGE : KEY_STEP;
    const grow = between === "columns" ? "ArrowRight" : "ArrowUp";
    const shrink = between === "columns" ? "ArrowLeft" : "ArrowDown";
    const next =
      event.key === grow ? size + step : event.key === shrink ? size - step : event.key === "Home" ? min : event.key === "End" ? max : null;
    if (next === null) return;
    event.preventDefault();
    const clamped = clampSize(next, min, max);
    onResize(clamped);
    onCommit?.(clamped);
  };
  const reset = () => {
    const clamped = clampSize(initial, min, max);
    onResize(clamped);
    onCommit?.(clamped);
  };

  return (
    <div
      className={`splitter ${between}`}
      role="separator"
      aria-orientation={between === "columns" ? "vertical" : "horizontal"}
      aria-label={label}
      aria-valuenow={size}
      aria-valuemin={min}
      aria-valuemax={Math.max(min, max)}
      tabIndex={0}
      title={`${label}: drag, or focus and use the arrow keys; double-click to reset`}
      data-testid={testId}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerEnd}
      onPointerCancel={onPointerEnd}
      onKeyDown={onKeyDown}
      onDoubleClick={reset}
    />
  );
}
