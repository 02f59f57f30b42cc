import crypto from "node:crypto";
import { ChildRunner } from "../testing/child-runner";
import type { ChaosFigure, ChaosScale } from "./chaos-scale";
import { dockerdRestart, sigkillMidRun } from "./parts/crash-parts";
import { fuzzEverything } from "./parts/fuzz-part";
import { createDeleteCycles, sessionsTimesCalls, slowReader } from "./parts/load-parts";

export { FULL_SCALE, SHORT_SCALE, type ChaosFigure, type ChaosScale } from "./chaos-scale";

/**
 * Berth's own campaign against a runner of its own (a child process: own data dir, port and BERTH_RUNNER_ID,
 * loopback only): a SIGKILL under live followers, concurrent sessions and calls, create/delete cycles, a fuzz
 * of every REST route and socket event, and a slow socket reader under bulk output. Returns the figures.
 * The parts live in parts/, one file per family (crashes, load, fuzz).
 */
export async function runChaos(
  scale: ChaosScale,
  log: (line: string) => void = () => undefined,
  only?: string,
): Promise<ChaosFigure[]> {
  const figures: ChaosFigure[] = [];
  const runner = await ChildRunner.create({
    runnerId: `chaos-${process.pid}-${crypto.randomBytes(3).toString("hex")}`,
  });
  try {
    for (const [name, part] of [
      ["SIGKILL mid-run", sigkillMidRun],
      ["sessions × calls", sessionsTimesCalls],
      ["create/delete cycles", createDeleteCycles],
      ["fuzz", fuzzEverything],
      ["slow socket reader", slowReader],
      ["dockerd restart", dockerdRestart],
    ] as const) {
      if (only && !name.includes(only)) continue;
      log(`chaos: ${name}…`);
      try {
        figures.push(...(await part(runner, scale)));
      } catch (error) {
        figures.push({ part: name, figure: "completed", value: (error as Error).message.slice(0, 200), ok: false });
      }
    }
  } finally {
    await runner.close();
  }
  return figures;
}

/** The figures as one table, for the terminal and the report. */
export function formatTable(figures: ChaosFigure[]): string {
  const rows = [
    ["part", "figure", "value", "ok"],
    ...figures.map((f) => [f.part, f.figure, f.value, f.ok ? "yes" : "NO"]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(rows[0]!), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}
