import client from "prom-client";

/** Prometheus metrics of one runner (GET /metrics). Gauges that mirror the database are collected on scrape. */
export class RunnerMetrics {
  readonly registry = new client.Registry();
  private readonly toolCalls = new client.Counter({
    name: "berth_tool_calls_total",
    help: "Tool calls by tool and result (ok, error, denied, parked)",
    labelNames: ["tool", "result"],
    registers: [this.registry],
  });
  private readonly toolLatency = new client.Histogram({
    name: "berth_tool_call_duration_seconds",
    help: "Tool call latency, admission to result",
    labelNames: ["tool"],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
    registers: [this.registry],
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
    this.toolCalls.inc({ tool, result });
    this.toolLatency.observe({ tool }, durationMs / 1000);
  }
}
