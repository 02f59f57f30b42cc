import os from "node:os";

/** Percentile of sorted-on-demand samples (nearest rank). */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

export async function timeMany(count: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  return samples;
}

export function row(label: string, samples: number[], unit = "ms"): string {
  return `${label.padEnd(44)} p50 ${percentile(samples, 50).toFixed(2).padStart(9)} ${unit}   p95 ${percentile(samples, 95).toFixed(2).padStart(9)} ${unit}   (n=${samples.length})`;
}

/** The median (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The load averages (1, 5, 15 min) as a bench prints them beside its figures. */
export function loadavg(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
}
