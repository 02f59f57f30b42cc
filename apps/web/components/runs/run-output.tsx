"use client";
import { useEffect, useMemo, useRef, type CSSProperties } from "react";
import { AnsiScreen, type AnsiSpan } from "@/lib/ansi";
import type { OutputChunk } from "./use-run-stream";

/** Lines kept on screen; the whole log is on the run's page and in the download. */
const MAX_LINES = 5000;

export function styleOf(span: AnsiSpan): CSSProperties | undefined {
  const { fg, bg, bold, dim, italic, underline, inverse } = span.style;
  if (!fg && !bg && !bold && !dim && !italic && !underline && !inverse) return undefined;
  return {
    ...(inverse ? { color: bg ?? "var(--bg, #111)", backgroundColor: fg ?? "var(--fg, #ddd)" } : { ...(fg ? { color: fg } : {}), ...(bg ? { backgroundColor: bg } : {}) }),
    ...(bold ? { fontWeight: 700 } : {}),
    ...(dim ? { opacity: 0.7 } : {}),
    ...(italic ? { fontStyle: "italic" } : {}),
    ...(underline ? { textDecoration: "underline" } : {}),
  };
}

/**
 * Feeds the chunks to one AnsiScreen incrementally: only the text added since the last render is parsed
 * (use-run-stream grows the last chunk in place or appends new ones); anything else starts over.
 */
function useScreen(chunks: OutputChunk[]) {
  const state = useRef({ screen: new AnsiScreen(MAX_LINES), index: 0, length: 0 });
  return useMemo(() => {
    let s = state.current;
    // A new run starts from no chunks; a chunk never shrinks while its run lasts.
    if (chunks.length < s.index + 1 || chunks[s.index]!.text.length < s.length) {
      s = state.current = { screen: new AnsiScreen(MAX_LINES), index: 0, length: 0 };
    }
    for (let i = s.index; i < chunks.length; i++) {
      const chunk = chunks[i]!;
      const from = i === s.index ? s.length : 0;
      if (chunk.text.length > from) s.screen.write(chunk.text.slice(from), chunk.stream);
      s.index = i;
      s.length = chunk.text.length;
    }
    return s.screen.lines();
  }, [chunks]);
}

/**
 * A run's output as a terminal shows it: ANSI colours, `\r` progress redraws, stdout and stderr in the
 * order they were written (stderr in red where it has no colour of its own); kept scrolled to the end
 * while the user has not scrolled up.
 */
export function OutputView({ chunks, testId, empty }: { chunks: OutputChunk[]; testId?: string; empty?: string }) {
  const ref = useRef<HTMLPreElement>(null);
  const stick = useRef(true);
  const lines = useScreen(chunks);
  useEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [lines]);
  const blank = chunks.length === 0;
  return (
    <pre
      className="output"
      ref={ref}
      data-testid={testId}
      onScroll={(event) => {
        const el = event.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {blank && empty ? <span className="muted">{empty}</span> : null}
      {blank
        ? null
        : lines.map((line, index) => (
            <span key={index} className="output-line">
              {line.map((span, j) => (
                <span key={j} className={span.stream === "stderr" && !span.style.fg ? "stderr" : undefined} style={styleOf(span)}>
                  {span.text}
                </span>
              ))}
              {index < lines.length - 1 ? "\n" : null}
            </span>
          ))}
    </pre>
  );
}
