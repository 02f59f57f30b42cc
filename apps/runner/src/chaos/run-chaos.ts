// `npm run chaos`: the full campaign against a runner of its own (chaos-campaign.ts); prints one table and exits
// non-zero when a figure is not what it promises. `--short` runs the bounded subset `npm test` runs; `--only <word>`
// the parts whose name holds the word (e.g. `--only dockerd`).
import os from "node:os";
import { FULL_SCALE, SHORT_SCALE, formatTable, runChaos } from "./chaos-campaign";

const scale = process.argv.includes("--short") ? SHORT_SCALE : FULL_SCALE;
const started = Date.now();
const onlyAt = process.argv.indexOf("--only");
const only = onlyAt > 0 ? process.argv[onlyAt + 1] : undefined;
const figures = await runChaos(scale, (line) => process.stderr.write(`${line}\n`), only);
process.stdout.write(`${formatTable(figures)}\n`);
const load = os
  .loadavg()
  .map((n) => n.toFixed(2))
  .join(" ");
process.stdout.write(
  `chaos: ${figures.filter((f) => !f.ok).length} figure(s) off; ${((Date.now() - started) / 1000).toFixed(0)} s; load average ${load}\n`,
);
process.exit(figures.every((f) => f.ok) ? 0 : 1);
