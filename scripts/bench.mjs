// `npm run bench [name]`: benchmarks print their own figures and ratios against a baseline measured in
// the same run. Names: sandbox, tools, admission, stream, code-nav, web, terminal; no name runs them all but code-nav, web and terminal.
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BENCHES = {
  sandbox: ["npx", "tsx", "packages/sandbox/src/bench/sandbox-bench.ts"],
  tools: ["npx", "tsx", "apps/runner/src/bench/tools-bench.ts"],
  admission: ["npx", "tsx", "packages/tools/src/admission/bench.ts"],
  stream: ["npx", "tsx", "apps/runner/src/bench/stream-bench.ts"],
  "code-nav": ["npx", "tsx", "apps/runner/src/bench/code-nav-bench.ts"],
  web: ["node", "apps/web/bench/web-bench.mjs"],
  "web-log": ["node", "apps/web/bench/log-bench.mjs"],
  "web-quick-open": ["npx", "tsx", "apps/web/bench/quick-open-bench.ts"],
  "web-workbench": ["node", "apps/web/bench/workbench-bench.mjs"],
  terminal: ["node", "apps/web/bench/terminal-bench.mjs"],
};

const wanted = process.argv.slice(2);
// web is the IDE page (against a running Berth) and then the workbench on big inputs, each on its own Berth:
// the 100k-line log view, quick open's ranking, quick open and search in the browser on 50k / 10k files.
const GROUPS = { web: ["web", "web-log", "web-quick-open", "web-workbench"] };
const names = (wanted.length ? wanted : ["sandbox", "tools", "admission", "stream"]).flatMap((name) => GROUPS[name] ?? [name]);
let failed = 0;
for (const name of names) {
  const command = BENCHES[name];
  if (!command) {
    console.error(`unknown bench: ${name} (choose from ${Object.keys(BENCHES).join(", ")})`);
    process.exit(2);
  }
  console.log(`\n##### bench:${name} #####`);
  const result = spawnSync(command[0], command.slice(1), { cwd: root, stdio: "inherit" });
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
