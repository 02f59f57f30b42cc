// What the browser benches (terminal, log, workbench) share: progress lines, the load average, and polling.
import os from "node:os";

/** `npm run bench`'s machine-readable lines: scripts/bench.mjs collects them into its closing table. */
export function printFigures(figures) {
  for (const figure of figures) console.log(`bench-figure ${JSON.stringify(figure)}`);
}

export const step = (what) => process.stderr.write(`• ${what}\n`);

export const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

/** Polls `check` until it returns something truthy, or throws naming `what` after `timeoutMs`. */
export async function waitFor(check, what, timeoutMs = 60_000, intervalMs = 200) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
