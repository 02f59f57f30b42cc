import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

// code_nav's contract through the real runner and a real sandbox: the index is built by the agent inside the
// container (Universal Ctags from the image) over repositories this test writes there.
type Result = {
  ok: boolean;
  output: string;
  details?: Record<string, unknown>;
  error?: { code: string; message: string };
};

let kit: TestRunner;
let ts: string;
let py: string;

const TS_REPO: Record<string, string> = {
  "package.json": JSON.stringify({ name: "acme", private: true, workspaces: ["packages/*"] }),
  "packages/core/package.json": JSON.stringify({
    name: "@acme/core",
    main: "dist/index.js",
    types: "dist/index.d.ts",
    exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js" }, "./math": "./dist/math.js" },
  }),
  "packages/core/src/index.ts":
    'export * from "./math.js";\nexport class Registry {\n  register(name: string): void {\n    void name;\n  }\n}\n',
  "packages/core/src/math.ts":
    "export function add(a: number, b: number): number {\n  return a + b;\n}\nexport interface Vector {\n  x: number;\n  y: number;\n}\n",
  "packages/cli/package.json": JSON.stringify({
    name: "@acme/cli",
    main: "src/main.ts",
    bin: { acme: "./bin/acme.js" },
  }),
  "packages/cli/bin/acme.js": '#!/usr/bin/env node\nimport "../src/main.js";\n',
  "packages/cli/src/main.ts": [
    'import { Registry } from "@acme/core";',
    'import { add } from "@acme/core/math";',
    'import chalk from "chalk";',
    'import { readFile } from "node:fs/promises";',
    'import { sumCommand } from "./commands/sum";',
    "export async function main(argv: string[]): Promise<void> {",
    "  new Registry().register(chalk.bold(String(add(1, 2))));",
    "  await readFile(argv[0] ?? '.');",
    "  sumCommand();",
    "}",
    "",
  ].join("\n"),
  "packages/cli/src/commands/sum.ts": 'import { add } from "@acme/core";\nexport const sumCommand = () => add(2, 3);\n',
};

const PY_REPO: Record<string, string> = {
  "pyproject.toml": '[project]\nname = "shapes"\nversion = "0.1.0"\n\n[project.scripts]\nshapes = "shapes.cli:main"\n',
  "src/shapes/__init__.py": 'from .geometry import Circle, area\n\n__all__ = ["Circle", "area"]\n',
  "src/shapes/__main__.py": "from .cli import main\n\nmain()\n",
  "src/shapes/geometry.py":
    "import math\n\n\nclass Circle:\n    def __init__(self, r):\n        self.r = r\n\n    def area(self):\n        return math.pi * self.r**2\n\n\ndef area(shape):\n    return shape.area()\n",
  "src/shapes/cli.py":
    "import sys\nfrom shapes.geometry import Circle\nfrom . import util\n\n\ndef main():\n    print(util.clamp(Circle(float(sys.argv[1])).area(), 0, 100))\n",
  "src/shapes/util.py": "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
  "tests/test_geometry.py":
    "import pytest\nfrom shapes import Circle\n\n\ndef test_area():\n    assert Circle(1).area() > 3\n",
};

async function call(session: string, tool: string, args: Record<string, unknown>): Promise<Result> {
  const { status, body } = await kit.tool<Result>(session, tool, args);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

async function nav(session: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await call(session, "code_nav", args);
  expect(result.ok, result.output).toBe(true);
  // The model reads the same data as JSON text.
  expect(JSON.parse(result.output)).toEqual(result.details);
  return result.details as Record<string, unknown>;
}

async function writeRepo(session: string, files: Record<string, string>) {
  for (const [path, content] of Object.entries(files))
    expect((await call(session, "write_file", { path, content })).ok).toBe(true);
  const git = await call(session, "bash", {
    command:
      "git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm init && git log --oneline | wc -l",
  });
  expect(git.ok, git.output).toBe(true);
}

beforeAll(async () => {
  kit = await startTestRunner();
  ts = await kit.createSession();
  py = await kit.createSession();
  await Promise.all([writeRepo(ts, TS_REPO), writeRepo(py, PY_REPO)]);
}, 120_000);
afterAll(async () => {
  await kit?.close();
});

describe("code_nav over a TypeScript monorepo in a container", () => {
  it("is a direct read tool on the session's surface", async () => {
    const { body } = await kit.api<{
      tools: { name: string; parameters: { properties: Record<string, { enum?: string[] }> } }[];
    }>("GET", `/api/sessions/${ts}/tools`, undefined, TEST_ADMIN_TOKEN);
    const spec = body.tools.find((tool) => tool.name === "code_nav");
    expect(spec?.parameters.properties.mode?.enum).toEqual([
      "symbol",
      "path",
      "entries",
      "outline",
      "deps",
      "dependents",
    ]);
  });

  it("symbol: a definition by name with path, line, kind and signature; Class.method by scope", async () => {
    expect(await nav(ts, { mode: "symbol", query: "add" })).toMatchObject({
      total: 1,
      symbols: [
        {
          name: "add",
          path: "packages/core/src/math.ts",
          line: 1,
          kind: "function",
          signature: "export function add(a: number, b: number): number {",
        },
      ],
    });
    expect(await nav(ts, { mode: "symbol", query: "Registry.register" })).toMatchObject({
      symbols: [{ name: "register", path: "packages/core/src/index.ts", line: 3, kind: "method", scope: "Registry" }],
    });
    expect(await nav(ts, { mode: "symbol", query: "add", path: "packages/cli" })).toMatchObject({
      total: 0,
      symbols: [],
    });
  });

  it("path: glob, substring, and /regex/ with g and y stripped (the same answer every time)", async () => {
    expect(await nav(ts, { mode: "path", query: "*.ts" })).toMatchObject({
      matcher: "glob",
      files: [
        "packages/cli/src/commands/sum.ts",
        "packages/cli/src/main.ts",
        "packages/core/src/index.ts",
        "packages/core/src/math.ts",
      ],
    });
    expect(await nav(ts, { mode: "path", query: "math" })).toMatchObject({
      matcher: "substring",
      files: ["packages/core/src/math.ts"],
    });
    for (let round = 0; round < 3; round++) {
      expect(await nav(ts, { mode: "path", query: "/commands\\/.*\\.ts$/gy" })).toMatchObject({
        matcher: "regex",
        total: 1,
        files: ["packages/cli/src/commands/sum.ts"],
      });
    }
    const bad = await call(ts, "code_nav", { mode: "path", query: "/x/q" });
    expect(bad.ok).toBe(false);
    expect(bad.error?.message).toContain('unknown regex flag "q" in /x/q');
  });

  it("path: a /regex/ is bounded by its length and a time limit, each named in the error", async () => {
    const long = await call(ts, "code_nav", { mode: "path", query: `/${"a".repeat(1000)}/` });
    expect(long).toMatchObject({ ok: false });
    expect(long.error?.message).toBe("code_nav: query: a /regex/ may be at most 1000 characters (got 1002)");
    // A path that makes /(a+)+\/x/ backtrack without end: the worker running it is stopped at the limit.
    expect((await call(ts, "write_file", { path: `${"a".repeat(40)}/y.ts`, content: "export {};\n" })).ok).toBe(true);
    const spinning = await call(ts, "code_nav", { mode: "path", query: "/^(a+)+\\/x/" });
    expect(spinning).toMatchObject({ ok: false, error: { code: "regex_time_limit" } });
    expect(spinning.error?.message).toMatch(/^code_nav: query: \/\^\(a\+\)\+\\\/x\/ ran past the time limit of 2000 ms over \d+ paths/);
    // The session's agent still answers at once.
    expect(await nav(ts, { mode: "path", query: "math" })).toMatchObject({ files: ["packages/core/src/math.ts"] });
    expect((await call(ts, "bash", { command: `rm -r ${"a".repeat(40)}` })).ok).toBe(true);
  });

  it("entries: package.json main, bin and exports first (built targets shown as their sources)", async () => {
    const { entries } = (await nav(ts, { mode: "entries" })) as {
      entries: { path: string; reason: string; exists: boolean }[];
    };
    expect(entries.slice(0, 4)).toEqual([
      {
        path: "packages/cli/src/main.ts",
        reason: "package.json main",
        manifest: "packages/cli/package.json",
        exists: true,
      },
      {
        path: "packages/cli/bin/acme.js",
        reason: "package.json bin acme",
        manifest: "packages/cli/package.json",
        exists: true,
      },
      {
        path: "packages/core/src/index.ts",
        reason: "package.json main (dist/index.js → source)",
        manifest: "packages/core/package.json",
        exists: true,
      },
      {
        path: "packages/core/src/math.ts",
        reason: "package.json exports ./math (./dist/math.js → source)",
        manifest: "packages/core/package.json",
        exists: true,
      },
    ]);
  });

  it("outline: a file's symbols in line order", async () => {
    expect(await nav(ts, { mode: "outline", query: "packages/core/src/math.ts" })).toMatchObject({
      path: "packages/core/src/math.ts",
      language: "typescript",
      symbols: [
        { name: "add", line: 1, kind: "function" },
        { name: "Vector", line: 4, kind: "interface" },
        { name: "x", line: 5, kind: "property", scope: "Vector" },
        { name: "y", line: 6, kind: "property", scope: "Vector" },
      ],
    });
  });

  it("deps: workspace packages resolved to their source files, and the external modules", async () => {
    expect(await nav(ts, { mode: "deps", query: "packages/cli/src/main.ts" })).toMatchObject({
      internal: [
        { specifier: "@acme/core", line: 1, path: "packages/core/src/index.ts" },
        { specifier: "@acme/core/math", line: 2, path: "packages/core/src/math.ts" },
        { specifier: "./commands/sum", line: 5, path: "packages/cli/src/commands/sum.ts" },
      ],
      external: ["chalk", "node:fs/promises"],
      unresolved: [],
    });
  });

  it("dependents: the files that import a file", async () => {
    expect(await nav(ts, { mode: "dependents", path: "packages/core/src/math.ts" })).toMatchObject({
      dependents: [
        { path: "packages/cli/src/main.ts", line: 2, specifier: "@acme/core/math" },
        { path: "packages/core/src/index.ts", line: 1, specifier: "./math.js" },
      ],
    });
  });

  it("a query given to the wrong mode is redirected to the one that answers it", async () => {
    const asSymbol = await call(ts, "code_nav", { mode: "symbol", query: "packages/core/src/math.ts" });
    expect(asSymbol).toMatchObject({ ok: false, error: { code: "wrong_mode" }, details: { redirect: "outline" } });
    expect(asSymbol.error?.message).toMatch(/use mode "outline" instead/);
    expect(await call(ts, "code_nav", { mode: "outline", query: "Registry" })).toMatchObject({
      ok: false,
      details: { redirect: "symbol" },
    });
    expect(await call(ts, "code_nav", { mode: "deps", query: "**/*.ts" })).toMatchObject({
      ok: false,
      details: { redirect: "path" },
    });
    expect(await call(ts, "code_nav", { mode: "path", query: "Registry" })).toMatchObject({
      ok: false,
      details: { redirect: "symbol" },
    });
    const empty = await call(ts, "code_nav", { mode: "symbol", query: "" });
    expect(empty).toMatchObject({ ok: false, error: { code: "invalid_arguments" } });
    expect(empty.error?.message).toContain('query: must not be empty for mode "symbol"');
  });

  it("sees a changed file at the next query", async () => {
    const content = `${TS_REPO["packages/core/src/math.ts"] as string}export function scale(v: Vector, k: number): Vector {\n  return { x: v.x * k, y: v.y * k };\n}\n`;
    expect((await call(ts, "write_file", { path: "packages/core/src/math.ts", content })).ok).toBe(true);
    expect(await nav(ts, { mode: "symbol", query: "scale" })).toMatchObject({
      symbols: [{ path: "packages/core/src/math.ts", line: 8 }],
    });
    expect((await call(ts, "bash", { command: "rm packages/cli/src/commands/sum.ts" })).ok).toBe(true);
    expect(await nav(ts, { mode: "symbol", query: "sumCommand" })).toMatchObject({ total: 0 });
  });
});

describe("code_nav over a Python package in a container", () => {
  it("symbol: classes, methods and functions by name", async () => {
    expect(await nav(py, { mode: "symbol", query: "Circle" })).toMatchObject({
      symbols: [{ path: "src/shapes/geometry.py", line: 4, kind: "class" }],
    });
    expect(await nav(py, { mode: "symbol", query: "area" })).toMatchObject({
      total: 2,
      symbols: [
        { path: "src/shapes/geometry.py", line: 8, kind: "member", scope: "Circle", signature: "def area(self):" },
        { path: "src/shapes/geometry.py", line: 12, kind: "function", signature: "def area(shape):" },
      ],
    });
    expect(await nav(py, { mode: "symbol", query: "Circle.area" })).toMatchObject({ total: 1, symbols: [{ line: 8 }] });
  });

  it("path and entries: pyproject scripts first, then conventional entry files", async () => {
    expect(await nav(py, { mode: "path", query: "/^tests\\/test_.*\\.py$/" })).toMatchObject({
      files: ["tests/test_geometry.py"],
    });
    expect(await nav(py, { mode: "entries" })).toMatchObject({
      entries: [
        { path: "src/shapes/cli.py", reason: "pyproject.toml script shapes", manifest: "pyproject.toml", exists: true },
        { path: "src/shapes/__main__.py", reason: "conventional", exists: true },
      ],
    });
  });

  it("outline, deps and dependents resolve relative and absolute imports under src/", async () => {
    expect(await nav(py, { mode: "outline", query: "src/shapes/geometry.py" })).toMatchObject({
      language: "python",
      symbols: [
        { name: "Circle", line: 4 },
        { name: "__init__", line: 5 },
        { name: "area", line: 8 },
        { name: "area", line: 12 },
      ],
    });
    expect(await nav(py, { mode: "deps", query: "src/shapes/cli.py" })).toMatchObject({
      internal: [
        { specifier: "shapes.geometry", line: 2, path: "src/shapes/geometry.py" },
        { specifier: ".", line: 3, path: "src/shapes/util.py" },
      ],
      external: ["sys"],
    });
    expect(await nav(py, { mode: "deps", query: "tests/test_geometry.py" })).toMatchObject({
      internal: [{ specifier: "shapes", path: "src/shapes/__init__.py" }],
      external: ["pytest"],
    });
    expect(await nav(py, { mode: "dependents", query: "src/shapes/geometry.py" })).toMatchObject({
      dependents: [
        { path: "src/shapes/__init__.py", specifier: ".geometry" },
        { path: "src/shapes/cli.py", specifier: "shapes.geometry" },
      ],
    });
  });

  it("redirects a module path given to symbol", async () => {
    expect(await call(py, "code_nav", { mode: "symbol", query: "src/shapes/util.py" })).toMatchObject({
      ok: false,
      details: { redirect: "outline" },
    });
    expect(await call(py, "code_nav", { mode: "symbol", query: "geometry.py" })).toMatchObject({
      ok: false,
      details: { redirect: "path" },
    });
  });
});
