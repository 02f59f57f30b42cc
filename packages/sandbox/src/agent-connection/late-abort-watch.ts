/**
 * Pending calls' abort signals, listened to only once a call has lasted `afterMs`. Most calls are answered well
 * before that, and an AbortSignal listener costs several microseconds of EventTarget work on every call (added, then
 * removed), on the reply's path. A signal that fires before it is listened to is seen when the watch comes round, so
 * its abort is acted on at most `afterMs` late: the caller hung up, and nobody waits for that answer.
 *
 * One timer serves every call that starts while it is armed; a call that ends before it fires costs a map entry.
 */
export class LateAbortWatch {
  /** Calls whose signals are not listened to yet, by request id. */
  private readonly waiting = new Map<number, { signal: AbortSignal; onAbort: () => void }>();
  /** Calls whose signals are listened to, by request id: what to remove when the call ends. */
  private readonly listening = new Map<number, { signal: AbortSignal; listener: () => void }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly afterMs: number) {}

  /** Runs `onAbort` once if `signal` fires while call `id` is pending (soon, if it already has). */
  watch(id: number, signal: AbortSignal, onAbort: () => void): void {
    if (signal.aborted) return queueMicrotask(onAbort);
    this.waiting.set(id, { signal, onAbort });
    if (this.timer === null) {
      this.timer = setTimeout(this.comeRound, this.afterMs);
      // A watch never keeps the process alive on its own.
      this.timer.unref();
    }
  }

  /** Call `id` ended: its signal no longer matters. */
  end(id: number): void {
    if (this.waiting.delete(id)) return;
    const listened = this.listening.get(id);
    if (!listened) return;
    this.listening.delete(id);
    listened.signal.removeEventListener("abort", listened.listener);
  }

  /** How many calls are watched either way (for tests: an ended call leaves nothing behind). */
  get size(): number {
    return this.waiting.size + this.listening.size;
  }

  private readonly comeRound = () => {
    this.timer = null;
    for (const [id, { signal, onAbort }] of this.waiting) {
      if (signal.aborted) {
        onAbort();
        continue;
      }
      const listener = () => {
        this.listening.delete(id);
        onAbort();
      };
      this.listening.set(id, { signal, listener });
      signal.addEventListener("abort", listener, { once: true });
    }
    this.waiting.clear();
  };
}
