"use client";
import { useCallback, useState } from "react";
import { errorMessage } from "@/lib/api";

/** A form's submit: busy while it runs, its failure kept as a message to show beside the form. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}

/** Asks first; a failure is shown in an alert (the row it concerns stays); the list is reloaded either way. */
export async function confirmThen(question: string, action: () => Promise<void>, reload: () => Promise<void>): Promise<void> {
  if (!window.confirm(question)) return;
  try {
    await action();
  } catch (caught) {
    window.alert(errorMessage(caught));
  }
  await reload();
}
