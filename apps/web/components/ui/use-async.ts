"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import { errorMessage } from "@/lib/api";

export type AsyncState<T> = { data: T | undefined; error: string | null; loading: boolean; reload: () => Promise<void>; setData: (update: (old: T | undefined) => T | undefined) => void };

/**
 * Loads data on mount and whenever `deps` change; `reload` refetches without clearing what is shown.
 * `initial` (rendered on the server) is shown at once and skips the load on mount.
 */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[], initial?: T): AsyncState<T> {
  const [data, setDataState] = useState<T | undefined>(initial);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(initial === undefined);
  const skipFirst = useRef(initial !== undefined);
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await loadRef.current();
      if (mine !== generation.current) return;
      setDataState(value);
      setError(null);
    } catch (caught) {
      if (mine !== generation.current) return;
      setError(errorMessage(caught));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    if (skipFirst.current) {
      skipFirst.current = false;
      return;
    }
    void reload();
  }, deps);

  const setData = useCallback((update: (old: T | undefined) => T | undefined) => setDataState(update), []);
  return { data, error, loading, reload, setData };
}
