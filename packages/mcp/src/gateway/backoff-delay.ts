export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** Reconnects tried in the background after a drop; after that, only the next use tries again. */
  maxBackgroundAttempts: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, factor: 2, maxBackgroundAttempts: 8 };

/**
 * Exponential backoff for the n-th consecutive failure (1-based), capped, with ±20 % jitter so many
 * sessions whose server dropped at once do not reconnect in lockstep.
 */
export function backoffDelay(attempt: number, opts: BackoffOptions, random: () => number = Math.random): number {
  const base = Math.min(opts.maxMs, opts.initialMs * opts.factor ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}
