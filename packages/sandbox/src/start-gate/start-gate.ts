/**
 * Bounds how many containers start at once. Fifty simultaneous starts on a small host make every one of
 * them slow enough to miss its handshake timeout; a queue gets the first sessions ready early and all of
 * them ready in about the same total time. Session starts jump ahead of warm-pool refills.
 */
export class StartGate {
  private active = 0;
  private readonly urgent: Array<() => void> = [];
  private readonly background: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.urgent.length + this.background.length;
  }

  async run<T>(fn: () => Promise<T>, opts: { background?: boolean } = {}): Promise<T> {
    if (this.active >= this.limit) {
      await new Promise<void>((resolve) => (opts.background ? this.background : this.urgent).push(resolve));
    } else {
      this.active++;
    }
    try {
      return await fn();
    } finally {
      const next = this.urgent.shift() ?? this.background.shift();
      if (next)
        next(); // the slot passes straight to the next in line
      else this.active--;
    }
  }
}
