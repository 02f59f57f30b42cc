"use client";
import { useEffect, useState } from "react";

export type Notice = { tone: "ok" | "bad"; text: string };

/** The toolbar's one-line notice: a success goes after 2.5 s, a failure stays 8 s to be read. */
export function useNotice() {
  const [notice, setNotice] = useState<Notice | null>(null);
  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => setNotice(null), notice.tone === "ok" ? 2500 : 8000);
    return () => clearTimeout(timer);
  }, [notice]);
  return [notice, setNotice] as const;
}
