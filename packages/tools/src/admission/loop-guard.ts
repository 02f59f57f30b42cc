import { systemClock } from "./clock";
import type { Clock } from "./clock";
import { canonicalArgsJson, sha256Hex } from "./render-call-text";

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

/** How a call that was let through ended, so a repeat can be judged against what it saw. */
export interface LoopGuardOutcome {
  callId: string;
  runId?: string;
  /**
   * The session's workspace generation once the call ended, counting the call's own change; undefined
   * when something else changed the workspace while it ran (its result may be stale already).
   */
  generation: number | undefined;
}

interface Entry {
  /** Attempts within the window since the workspace last changed, blocked ones included. */
  times: number[];
  /** The generation those attempts saw. */
  generation: number | undefined;
  /** The latest attempt that ran: the result a blocked repeat points back to. */
  last?: { callId: string; runId?: string; at: number };
}

const ordinal = (n: number): string => {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${["th", "st", "nd", "rd"][n % 10] ?? "th"}`;
};

/** The key admission checks a call under: the session and the digest of the rendered call. */
export const loopGuardKey = (sessionId: string, digest: string): string => `${sessionId}\u0000${digest}`;

/**
 * Stops an agent repeating itself without blocking the edit-and-verify loop: the 3rd identical call
 * (tool + canonical args) within 30 s is blocked only if the workspace generation it observes is the
 * one the previous identical call left behind. A write, patch, edit or finished command in between
 * bumps the generation, so `cat src.txt` after each edit is never a repeat; the call's own change
 * does not count, so `npm test` three times over an unchanged tree still is. Every attempt counts,
 * blocked ones too, so a looping agent stays blocked until it pauses or changes something.
 */
export class LoopGuard {
  private readonly windowMs: number;
  private readonly limit: number;
  private readonly clock: Clock;
  private readonly maxKeys: number;
  private readonly seen = new Map<string, Entry>();

  constructor(options: LoopGuardOptions = {}) {
    this.windowMs = options.windowMs ?? 30_000;
    this.limit = options.limit ?? 3;
    this.clock = options.clock ?? systemClock;
    this.maxKeys = options.maxKeys ?? 10_000;
  }

  /** Records a call and says whether it is blocked. `sessionId` scopes the count. */
  check(sessionId: string, tool: string, args: unknown, generation?: number): LoopGuardVerdict {
    return this.checkKey(loopGuardKey(sessionId, `${tool}\u0000${sha256Hex(canonicalArgsJson(args))}`), tool, generation);
  }

  /**
   * Same, for a caller that already has a digest of the rendered call (admission does). `generation`
   * is the session's workspace generation now; omitted, only time and arguments count.
   */
  checkKey(key: string, tool: string, generation?: number): LoopGuardVerdict {
    const now = this.clock.now();
    const entry = this.seen.get(key) ?? { times: [], generation };
    // Something changed since the last identical call: what this one observes is new.
    if (entry.generation !== generation) {
      entry.times = [];
      entry.generation = generation;
    }
    entry.times = entry.times.filter((t) => now - t < this.windowMs);
    entry.times.push(now);
    this.seen.delete(key); // re-insert so Map order stays least-recently-used first
    this.seen.set(key, entry);
    if (this.seen.size > this.maxKeys) this.prune(now);
    const count = entry.times.length;
    if (count < this.limit) return { blocked: false, count };
    return { blocked: true, count, message: this.message(tool, count, entry, now) };
  }

  /** Records how an admitted call ended: the generation it left and where its result is. */
  settle(key: string, outcome: LoopGuardOutcome): void {
    const entry = this.seen.get(key);
    if (entry === undefined) return;
    entry.generation = outcome.generation;
    entry.last = {
      callId: outcome.callId,
      ...(outcome.runId === undefined ? {} : { runId: outcome.runId }),
      at: this.clock.now(),
    };
  }

  reset(): void {
    this.seen.clear();
  }

  private message(tool: string, count: number, entry: Entry, now: number): string {
    const seconds = Math.round(this.windowMs / 1000);
    const head = `Loop guard: blocked the ${ordinal(count)} identical ${tool} call (same tool and arguments) within ${seconds} s`;
    const last = entry.last;
    if (last === undefined) {
      return `${head}. Change the arguments or try a different approach instead of repeating the call.`;
    }
    const where = last.runId === undefined ? `call ${last.callId}` : `call ${last.callId} (run ${last.runId})`;
    const ago = Math.max(0, Math.round((now - last.at) / 1000));
    return (
      `${head}, and nothing in the workspace has changed since (no write, patch, edit or finished command). ` +
      `The same call already answered as ${where} at ${new Date(last.at).toISOString()} (${ago} s ago): ` +
      `use that result, or change something before calling it again.`
    );
  }

  private prune(now: number): void {
    for (const [key, entry] of this.seen) {
      const stale = entry.times.every((t) => now - t >= this.windowMs);
      if (this.seen.size <= this.maxKeys && !stale) break;
      if (this.seen.size > this.maxKeys || stale) this.seen.delete(key);
    }
  }
}
