import client from "prom-client";

/** How many tool calls wait to be counted before they are counted anyway (a runner nobody scrapes). */
const PENDING_CALLS_MAX = 1024;

/** Prometheus metrics of one runner (GET /metrics). Gauges that mirror the database are collected on scrape. */
export class RunnerMetrics {
  readonly registry = new client.Registry();
  /**
   * Tool calls not yet counted, in order: a call only appends here, and the two metrics take them in when they are
   * read (a scrape) or when many wait. prom-client's label lookups cost microseconds a call, on the reply's path.
   */
  private pendingCalls: { tool: string; result: string; seconds: number }[] = [];
  private readonly toolCalls = new client.Counter({
    name: "berth_tool_calls_total",
    help: "Tool calls by tool and result (ok, error, denied, parked)",
    labelNames: ["tool", "result"],
    registers: [this.registry],
    collect: () => this.countPendingCalls(),
  });
  private readonly toolLatency = new client.Histogram({
    name: "berth_tool_call_duration_seconds",
    help: "Tool call latency, admission to result",
    labelNames: ["tool"],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
    registers: [this.registry],
    collect: () => this.countPendingCalls(),
  });

  constructor(collect: { sessions: () => Promise<number>; runsByOutcome: () => Promise<Record<string, number>>; approvalsPending: () => Promise<number> }) {
    client.collectDefaultMetrics({ register: this.registry, prefix: "berth_runner_" });
    new client.Gauge({
      name: "berth_sessions",
      help: "Sessions that are not deleted",
      registers: [this.registry],
      async collect() {
        this.set(await collect.sessions());
      },
    });
    new client.Gauge({
      name: "berth_runs",
      help: "Runs by outcome (running for those in flight)",
      labelNames: ["outcome"],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [outcome, count] of Object.entries(await collect.runsByOutcome())) this.set({ outcome }, count);
      },
    });
    new client.Gauge({
      name: "berth_approvals_pending",
      help: "Approval requests waiting for an operator",
      registers: [this.registry],
      async collect() {
        this.set(await collect.approvalsPending());
      },
    });
  }

  toolCall(tool: string, result: "ok" | "error" | "denied" | "parked", durationMs: number): void {
    this.pendingCalls.push({ tool, result, seconds: durationMs / 1000 });
    if (this.pendingCalls.length >= PENDING_CALLS_MAX) this.countPendingCalls();
  }

  private countPendingCalls(): void {
    const calls = this.pendingCalls;
    this.pendingCalls = [];
    for (const { tool, result, seconds } of calls) {
      this.toolCalls.inc({ tool, result });
      this.toolLatency.observe({ tool }, seconds);
    }
  }
}
