"use client";
import { useState } from "react";

/** Characters shown before "show all": an approval for an 8 MiB write_file would otherwise freeze the page. */
const PREVIEW_CHARS = 20_000;

/**
 * A <pre> that shows the start of a long text and the rest on request. Nothing is hidden for good: an
 * operator approves a sha256 of the whole text, so the whole text is one click away.
 */
export function LongText({ text, className, testId }: { text: string; className?: string; testId?: string }) {
  const [all, setAll] = useState(false);
  const long = text.length > PREVIEW_CHARS && !all;
  return (
    <>
      <pre className={className} data-testid={testId}>
        {long ? text.slice(0, PREVIEW_CHARS) : text}
      </pre>
      {long ? (
        <button className="btn small" onClick={() => setAll(true)} data-testid="show-all-text">
          Show the remaining {(text.length - PREVIEW_CHARS).toLocaleString()} characters
        </button>
      ) : null}
    </>
  );
}
