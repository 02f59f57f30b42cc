// Quick open's ranking over 50k paths, per keystroke: each prefix of a typed query is ranked as the
// palette does (rankFuzzy, top 50), against a baseline measured in the same run: a plain
// case-insensitive substring filter over the same list (the least a file finder does per keystroke).
// Rounds alternate (fuzzy, baseline, …); figures are medians. Run: npx tsx apps/web/bench/quick-open-bench.ts
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { rankFuzzy } from "../lib/fuzzy-match";

const FILES = 50_000;
const ROUNDS = 15;
const QUERY = "srccompbutton";

const folders = ["src", "lib", "test", "packages/core/src", "apps/web/components", "docs/guide"];
const paths = Array.from(
  { length: FILES },
  (_, i) => `${folders[i % folders.length]}/mod${i % 500}/part-${i}/file${i}.ts`,
);
paths.push("src/components/ui/button-group.tsx");

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function keystrokes(rank: (query: string) => unknown): number[] {
  const times: number[] = [];
  for (let n = 1; n <= QUERY.length; n++) {
    const started = performance.now();
    rank(QUERY.slice(0, n));
    times.push(performance.now() - started);
  }
  return times;
}

const substring = (query: string) => {
  const q = query.toLowerCase();
  return paths.filter((path) => path.toLowerCase().includes(q)).slice(0, 50);
};

const fuzzy: number[] = [];
const baseline: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  fuzzy.push(median(keystrokes((q) => rankFuzzy(q, paths, 50))));
  baseline.push(median(keystrokes(substring)));
}
const top = rankFuzzy(QUERY, paths, 1)[0]?.path;
const f = median(fuzzy);
const b = median(baseline);
console.log(
  `quick open over ${paths.length.toLocaleString()} paths, ${QUERY.length} keystrokes × ${ROUNDS} rounds (load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")})`,
);
console.log(`  fuzzy rank (top 50)     p50 ${f.toFixed(1)} ms per keystroke   (target ≤ 100 ms)   best: ${top}`);
console.log(`  baseline substring      p50 ${b.toFixed(1)} ms per keystroke`);
console.log(`  ratio fuzzy / baseline  ${(f / b).toFixed(2)}x`);
const figure = { figure: `quick open rank, ${paths.length} paths, per keystroke p50`, value: f, unit: "ms", baseline: "substring filter", baselineValue: b, target: "≤ 100 ms", ok: f <= 100 };
console.log(`bench-figure ${JSON.stringify(figure)}`);
