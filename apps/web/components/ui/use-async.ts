"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import { errorMessage } from "@/lib/api";

export type AsyncState<T> = { data: T | undefined; error: string | null; loading: boolean; reload: () => Promise<void>; setData: (update: (old: T | undefined) => T | undefined) => void };

/** Loads data on mount and whenever `deps` change; `reload` refetches without clearing what is shown. */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): AsyncState<T> {
  const [data, setDataState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
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
    void reload();
  }, deps);

  const setData = useCallback((update: (old: T | undefined) => T | undefined) => setDataState(update), []);
  return { data, error, loading, reload, setData };
}
