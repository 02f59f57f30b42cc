"use client";
import { useCallback, useEffect, useState } from "react";
import { FILE_TREE_GLOB, callTool, errorMessage } from "@/lib/api";

/**
 * The workspace's file list for the tree, from glob. The server renders the page with the first listing
 * (`initial`); after that the list is read again whenever the session says files changed.
 */
export function useWorkspaceFiles(sessionId: string, initial: string[] | null | undefined) {
  const [files, setFiles] = useState<string[]>(initial ?? []);
  const [loading, setLoading] = useState(!initial);
  const [error, setError] = useState<string | null>(null);

  const reload = useCallback(async () => {
    try {
      const result = await callTool(sessionId, "glob", FILE_TREE_GLOB);
      if (!result.ok) throw new Error(result.error?.message ?? result.output);
      setFiles((result.details as { files?: string[] } | undefined)?.files ?? []);
      setError(null);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setLoading(false);
    }
  }, [sessionId]);

  // The server sent the tree with the page; the session's join lists it again to catch any change since.
  useEffect(() => {
    if (!initial) void reload();
    // Only the session's first listing: `initial` is the page's, it does not change.
  }, [reload]);

  /** Shows a file this page just made without waiting for the next listing. */
  const add = useCallback((path: string) => setFiles((old) => (old.includes(path) ? old : [...old, path].sort())), []);

  return { files, loading, error, reload, add };
}
