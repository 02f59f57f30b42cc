/**
 * Fresh AbortControllers, their signals already made, for the tool calls that arrive over HTTP: each call takes one
 * of its own (never one another call had). Node makes a signal lazily, and making one (an EventTarget) costs a call
 * several microseconds on its reply's path; these are made in batches on a timer, which runs while the runner waits
 * for the sandbox's answer. When none is ready, a call makes its own as before.
 */
export class AbortControllerSupply {
  private ready: AbortController[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    /** How many a batch makes. */
    private readonly batch = 64,
    /** Below this many ready, the next batch is made. */
    private readonly lowWater = 16,
  ) {}

  take(): AbortController {
    const controller = this.ready.pop() ?? withSignal(new AbortController());
    if (this.ready.length < this.lowWater && this.timer === null) {
      this.timer = setTimeout(this.refill, 0);
      // Making ahead never keeps the process alive.
      this.timer.unref();
    }
    return controller;
  }

  private readonly refill = () => {
    this.timer = null;
    while (this.ready.length < this.batch) this.ready.push(withSignal(new AbortController()));
  };
}

/** The controller with its signal made (Node makes it on first read). */
function withSignal(controller: AbortController): AbortController {
  void controller.signal;
  return controller;
}
