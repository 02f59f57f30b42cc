"use client";
import { useEffect, useRef } from "react";
import type { OutputChunk } from "./use-run-stream";

/** stdout as is, stderr in red, kept scrolled to the end while the user has not scrolled up. */
export function OutputView({ chunks, testId, empty }: { chunks: OutputChunk[]; testId?: string; empty?: string }) {
  const ref = useRef<HTMLPreElement>(null);
  const stick = useRef(true);
  useEffect(() => {
    const el = ref.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [chunks]);
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
      {chunks.length === 0 && empty ? <span className="muted">{empty}</span> : null}
      {chunks.map((chunk, index) => (
        <span key={index} className={chunk.stream === "stderr" ? "stderr" : undefined}>
          {chunk.text}
        </span>
      ))}
    </pre>
  );
}
