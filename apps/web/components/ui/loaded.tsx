"use client";
import type { ReactNode } from "react";
import type { AsyncState } from "./use-async";
import { ErrorState, Spinner } from "./states";

/**
 * What every list shows while it loads (useAsync): a failure with Retry if nothing was loaded yet, a
 * spinner until the first answer, `empty` for an empty list, else the content. Data already shown stays
 * when a reload fails.
 */
export function Loaded<T>({
  state,
  loading,
  empty,
  children,
}: {
  state: AsyncState<T[]>;
  loading: string;
  empty: ReactNode;
  children: (data: T[]) => ReactNode;
}) {
  if (state.error && !state.data) return <ErrorState message={state.error} onRetry={() => void state.reload()} />;
  if (!state.data) return <Spinner label={loading} />;
  if (state.data.length === 0) return <>{empty}</>;
  return <>{children(state.data)}</>;
}
