import { systemClock } from "./clock";
import type { Clock } from "./clock";
import { canonicalJson, sha256Hex } from "./render-call-text";

export type LoopGuardVerdict = { blocked: false; count: number } | { blocked: true; count: number; message: string };

export interface LoopGuardOptions {
  /** Window in which identical calls count; 30 s per the spec. */
  windowMs?: number;
  /** The call that reaches this count within the window is blocked; 3 per the spec. */
  limit?: number;
  clock?: Clock;
  /** Keys kept at most; the oldest are dropped first so a long session cannot grow memory. */
  maxKeys?: number;
}

const ordinal = (n: number): string => {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${["th", "st", "nd", "rd"][n % 10] ?? "th"}`;
};

/**
 * Stops an agent repeating itself: the 3rd identical call (tool + canonical args) within 30 s is
 * blocked. Every attempt counts, blocked ones too, so a looping agent stays blocked until it pauses.
 */
export class LoopGuard {
  private readonly windowMs: number;
  private readonly limit: number;
  private readonly clock: Clock;
  private readonly maxKeys: number;
  private readonly seen = new Map<string, number[]>();

  constructor(options: LoopGuardOptions = {}) {
    this.windowMs = options.windowMs ?? 30_000;
    this.limit = options.limit ?? 3;
    this.clock = options.clock ?? systemClock;
    this.maxKeys = options.maxKeys ?? 10_000;
  }

  /** Records a call and says whether it is blocked. `sessionId` scopes the count. */
  check(sessionId: string, tool: string, args: unknown): LoopGuardVerdict {
    return this.checkKey(`${sessionId}\u0000${tool}\u0000${sha256Hex(canonicalJson(args))}`, tool);
  }

  /** Same, for a caller that already has a digest of the rendered call (admission does). */
  checkKey(key: string, tool: string): LoopGuardVerdict {
    const now = this.clock.now();
    const times = (this.seen.get(key) ?? []).filter((t) => now - t < this.windowMs);
    times.push(now);
    this.seen.delete(key); // re-insert so Map order stays least-recently-used first
    this.seen.set(key, times);
    if (this.seen.size > this.maxKeys) this.prune(now);
    const count = times.length;
    if (count < this.limit) return { blocked: false, count };
    const seconds = Math.round(this.windowMs / 1000);
    return {
      blocked: true,
      count,
      message: `Loop guard: blocked the ${ordinal(count)} identical ${tool} call (same tool and arguments) within ${seconds} s. Change the arguments or try a different approach instead of repeating the call.`,
    };
  }

  reset(): void {
    this.seen.clear();
  }

  private prune(now: number): void {
    for (const [key, times] of this.seen) {
      if (this.seen.size <= this.maxKeys && times.every((t) => now - t < this.windowMs)) break;
      if (this.seen.size > this.maxKeys || times.every((t) => now - t >= this.windowMs)) this.seen.delete(key);
    }
  }
}
