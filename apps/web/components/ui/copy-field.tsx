"use client";
import { useState, type ReactNode } from "react";

/** A read-only value (a share link, a new token) with a Copy button; `children` are further actions beside it. */
export function CopyField({ value, testId, children }: { value: string; testId?: string; children?: ReactNode }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="share-box">
      <input readOnly value={value} data-testid={testId} onFocus={(event) => event.currentTarget.select()} />
      <button
        className="btn small"
        onClick={() => {
          void navigator.clipboard
            ?.writeText(value)
            .then(() => setCopied(true))
            .catch(() => undefined);
        }}
      >
        {copied ? "Copied" : "Copy"}
      </button>
      {children}
    </div>
  );
}
