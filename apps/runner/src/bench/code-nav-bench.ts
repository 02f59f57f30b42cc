// npm run bench:code-nav — code_nav through the agent in a real container (the sandbox driver's RPC, no HTTP
// or admission in between) on a generated 10,000-file repository (TypeScript, Python, Go, Rust, Java):
// index build time against `ctags -R` of the same tree in the same container (and, without a target, the
// import graph the first `dependents` call reads), the update after one changed
// file against one `ctags` run on that file, and symbol query latency against a read_file round trip.
// Rounds alternate which side goes first; medians are reported, with the load average.
import { randomBytes } from "node:crypto";
import os from "node:os";
import type { ToolResult } from "@berth/protocol";
import { DockerSandboxDriver } from "@berth/sandbox";
import { percentile } from "./bench-stats";

const ROUNDS = 3;
const QUERIES = 200;

const GENERATOR = String.raw`
import os
DIRS, PER_DIR = 100, 100
for d in range(DIRS):
    base = f"repo/pkg{d}"
    os.makedirs(base, exist_ok=True)
    for f in range(PER_DIR):
        n = d * PER_DIR + f
        kind = n % 10
        prev = f - 1 if f > 0 else PER_DIR - 1
        body = []
        if kind < 4:
            body.append(f'import {{ fn{d}_{prev}_0 }} from "./m{prev}";')
            body.append('import { readFile } from "node:fs/promises";')
            for k in range(5):
                body += [f"export function fn{d}_{f}_{k}(a: number, b: string): string {{", "  const x = a * 2;", "  return b + String(x);", "}", ""]
            body += [f"export class Service{n} {{", "  private count = 0;", "  run(input: string): number {", "    this.count += input.length;", "    return this.count;", "  }", "}"]
            name = f"m{f}.ts"
        elif kind < 7:
            body += ["import os", f"from .m{prev} import fn{d}_{prev}_0", ""]
            for k in range(5):
                body += [f"def fn{d}_{f}_{k}(a, b):", "    x = a * 2", "    return str(b) + str(x)", ""]
            body += [f"class Service{n}:", "    def __init__(self):", "        self.count = 0", "", "    def run(self, text):", "        self.count += len(text)", "        return self.count"]
            name = f"m{f}.py"
        elif kind == 7:
            body += [f"package pkg{d}", "", 'import "fmt"', ""]
            for k in range(5):
                body += [f"func Fn{d}_{f}_{k}(a int, b string) string {{", "\tx := a * 2", "\treturn fmt.Sprint(b, x)", "}", ""]
            body += [f"type Service{n} struct {{ Count int }}", "", f"func (s *Service{n}) Run(text string) int {{", "\ts.Count += len(text)", "\treturn s.Count", "}"]
            name = f"m{f}.go"
        elif kind == 8:
            body += ["use std::fmt::Write;", ""]
            for k in range(5):
                body += [f"pub fn fn{d}_{f}_{k}(a: i64, b: &str) -> String {{", "    let x = a * 2;", '    format!("{}{}", b, x)', "}", ""]
            body += [f"pub struct Service{n} {{ count: usize }}", "", f"impl Service{n} {{", "    pub fn run(&mut self, text: &str) -> usize {", "        self.count += text.len();", "        self.count", "    }", "}"]
            name = f"m{f}.rs"
        else:
            body += [f"package pkg{d};", "", "import java.util.List;", "", f"public class Service{n} {{", "    private int count = 0;"]
            for k in range(5):
                body += [f"    public String fn{d}_{f}_{k}(int a, String b) {{", "        int x = a * 2;", "        return b + x;", "    }", ""]
            body += ["}"]
            name = f"Service{n}.java"
        with open(f"{base}/{name}", "w") as out:
            out.write("\n".join(body) + "\n")
print(sum(len(files) for _, _, files in os.walk("repo")))
`;

type Details = Record<string, unknown>;

function median(samples: number[]): number {
  return percentile(samples, 50);
}

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(2);
}

async function main(): Promise<void> {
  const runnerId = `bench-codenav-${randomBytes(4).toString("hex")}`;
  const driver = new DockerSandboxDriver({ runnerId, poolSize: 0, heartbeatIntervalMs: 0, idleTimeoutMs: 0 });
  driver.on("warning", (w) => console.error(`warning: ${w.message}`));
  const loadBefore = os.loadavg()[0] ?? 0;
  let calls = 0;
  const call = async (session: string, tool: string, args: unknown, timeoutMs = 600_000): Promise<ToolResult> =>
    driver.call(session, { tool, args, callId: `c${++calls}` }, { timeoutMs });
  const must = async (session: string, tool: string, args: unknown): Promise<Details> => {
    const result = await call(session, tool, args);
    if (!result.ok) throw new Error(`${tool} failed: ${result.output}`);
    return (result.details ?? {}) as Details;
  };
  /** Wall time of a shell command inside the container, measured there (bash's `time`), in ms. */
  const timedInside = async (session: string, command: string): Promise<number> => {
    const details = await must(session, "bash", {
      command: `TIMEFORMAT=%R; { time ${command} > /dev/null 2>&1 ; } 2>&1`,
      timeoutMs: 600_000,
    });
    return Number.parseFloat(String(details.stdout).trim()) * 1000;
  };
  const timed = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
    const started = performance.now();
    const value = await fn();
    return [performance.now() - started, value];
  };

  const build: number[] = [];
  const ctagsR: number[] = [];
  const importGraph: number[] = [];
  const update: number[] = [];
  const ctagsOne: number[] = [];
  const query: number[] = [];
  const readRoundTrip: number[] = [];
  let files = 0;
  try {
    await driver.start();
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh container and workspace per round: the first code_nav call builds the index from nothing.
      const session = `codenav-${round}`;
      await driver.create(session);
      await must(session, "write_file", { path: "gen.py", content: GENERATOR });
      const generated = await must(session, "bash", { command: "python3 gen.py", timeoutMs: 600_000 });
      files = Number.parseInt(String(generated.stdout).trim(), 10);
      // Both sides read the same tree from a warm page cache.
      await timedInside(session, "cat repo/*/* ");
      const ctagsCommand = "ctags -R --output-format=json --fields=+nKSe -f - --map-TypeScript=+.tsx repo";
      const measureCtags = async () => ctagsR.push(await timedInside(session, ctagsCommand));
      const measureBuild = async () => {
        const [ms, details] = await timed(() => must(session, "code_nav", { mode: "symbol", query: "Service4242" }));
        if (details.total !== 1) throw new Error(`index missed Service4242: ${JSON.stringify(details)}`);
        build.push(ms);
      };
      if (round % 2 === 0) {
        await measureCtags();
        await measureBuild();
      } else {
        await measureBuild();
        await measureCtags();
      }
      // Imports are read on the first deps/dependents question: the whole import graph, once.
      const [graphMs, graph] = await timed(() =>
        must(session, "code_nav", { mode: "dependents", query: "repo/pkg3/m2.ts" }),
      );
      if (graph.total !== 1) throw new Error(`import graph missed repo/pkg3/m3.ts → m2: ${JSON.stringify(graph)}`);
      importGraph.push(graphMs);

      // One changed file: the next query must see its new definition.
      for (let change = 0; change < 5; change++) {
        const file = `repo/pkg${10 + change}/m${round * 5 + change}.ts`;
        const fresh = `fresh_${round}_${change}`;
        await must(session, "bash", { command: `printf 'export function ${fresh}(): void {}\\n' >> ${file}` });
        const [ms, details] = await timed(() => must(session, "code_nav", { mode: "symbol", query: fresh }));
        if (details.total !== 1) throw new Error(`update missed ${fresh}: ${JSON.stringify(details)}`);
        update.push(ms);
        ctagsOne.push(await timedInside(session, `ctags --output-format=json --fields=+nKSe -f - ${file}`));
      }

      await must(session, "write_file", { path: "small.txt", content: "x\n" });
      for (let i = 0; i < QUERIES; i++) {
        const name = `fn${i % 100}_${(i * 7) % 100}_${i % 5}`;
        if (i % 2 === 0) {
          query.push((await timed(() => must(session, "code_nav", { mode: "symbol", query: name })))[0]);
          readRoundTrip.push((await timed(() => must(session, "read_file", { path: "small.txt" })))[0]);
        } else {
          readRoundTrip.push((await timed(() => must(session, "read_file", { path: "small.txt" })))[0]);
          query.push((await timed(() => must(session, "code_nav", { mode: "symbol", query: name })))[0]);
        }
      }
      await driver.destroy(session);
    }
  } finally {
    await driver.close({ stopSessions: true }).catch(() => undefined);
  }

  const loadAfter = os.loadavg()[0] ?? 0;
  console.log(
    `\ncode_nav bench: ${files} files, ${ROUNDS} rounds, load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)} on ${os.cpus().length} CPUs\n`,
  );
  const rows: [string, number, string, number, string][] = [
    ["index build (first code_nav call)", median(build), "ctags -R of the same tree", median(ctagsR), "≤ 10000 ms"],
    ["update after one changed file + query", median(update), "ctags of that one file", median(ctagsOne), "≤ 50 ms"],
    [
      "symbol query p50 (through the agent)",
      median(query),
      "read_file round trip p50",
      median(readRoundTrip),
      "≤ 5 ms",
    ],
  ];
  for (const [label, value, baseLabel, base, target] of rows) {
    console.log(
      `${label.padEnd(40)} ${fmt(value).padStart(8)} ms   vs ${baseLabel.padEnd(28)} ${fmt(base).padStart(8)} ms   ratio ${(value / base).toFixed(2)}x   target ${target}`,
    );
  }
  const limits = [10_000, 50, 5];
  rows.forEach(([figure, value, baseline, baselineValue, target], i) =>
    console.log(
      `bench-figure ${JSON.stringify({ figure, value, unit: "ms", baseline, baselineValue, target, ok: value <= limits[i]! })}`,
    ),
  );
  // Read on the first deps/dependents question rather than during the build; shown beside the build, no target.
  console.log(
    `bench-figure ${JSON.stringify({ figure: "import graph (first dependents call)", value: median(importGraph), unit: "ms", baseline: "ctags -R of the same tree", baselineValue: median(ctagsR) })}`,
  );
  console.log(
    `symbol query p95 ${fmt(percentile(query, 95))} ms; build samples ${build.map(fmt).join(", ")} ms; ctags -R samples ${ctagsR.map(fmt).join(", ")} ms`,
  );
  const ok = rows.every(([, value], i) => value <= limits[i]!);
  if (!ok) process.exitCode = 1;
}

await main();
