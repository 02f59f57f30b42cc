// Entry of the berth-verify bundle (build.mjs → dist/berth-verify.mjs). The only place that reads
// process.env or exits.
import { runCli } from "./run-cli";

process.exitCode = await runCli(process.argv.slice(2), {
  berthUrl: process.env["BERTH_URL"] || undefined,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
});
