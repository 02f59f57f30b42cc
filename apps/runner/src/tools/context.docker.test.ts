import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN, startTestRunner, type TestRunner } from "../testing/runner-test-kit";
import { installSkill } from "../testing/install-skill";

/**
 * `context` in every mode against real repositories in a container, the observation budget (a cut grep with
 * its one notice line, recall of the rest, a spent pool) — over a real MCP SDK client.
 */
let kit: TestRunner;
let monorepo: string;
let pypkg: string;

const GREP_CAP = 2048;
const POOL = 8192;

async function mcp(sessionId: string): Promise<Client> {
  const client = new Client({ name: "berth-context-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${kit.url}/mcp/${sessionId}`), {
      requestInit: { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
    }),
  );
  return client;
}

const textOf = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

/** `context` through the gateway, as a model reaches it (it is gateway-placed). */
async function context(
  client: Client,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; text: string; json: Record<string, unknown> }> {
  const result = (await client.callTool({
    name: "gateway",
    arguments: { op: "call", capability: "context", args },
  })) as CallToolResult;
  const text = textOf(result);
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // a failure's text is its message
  }
  return { isError: result.isError === true, text, json };
}

async function bash(sessionId: string, command: string): Promise<void> {
  const { status, body } = await kit.tool<{ ok: boolean; output: string }>(sessionId, "bash", {
    command,
    timeoutMs: 60_000,
  });
  if (status !== 200 || !body.ok) throw new Error(`bash ${command}: ${status} ${JSON.stringify(body)}`);
}

const GIT = "git -c user.name=Tester -c user.email=tester@example.test";

beforeAll(async () => {
  kit = await startTestRunner({
    env: { BERTH_OBSERVATION_CAPS: `grep=${GREP_CAP}`, BERTH_OBSERVATION_POOL_BYTES: String(POOL) },
  });
  [monorepo, pypkg] = await Promise.all([
    kit.createSession({ autonomy: "yolo" }),
    kit.createSession({ autonomy: "yolo" }),
  ]);
  // A TypeScript monorepo: two workspace packages, AGENTS.md, one commit, then a change and a new file.
  const files: Record<string, string> = {
    "package.json": JSON.stringify({ name: "mono", private: true, workspaces: ["packages/*"] }, null, 2),
    "tsconfig.json": JSON.stringify({ compilerOptions: { strict: true } }),
    "AGENTS.md": "# Agents\nRun npm test.\n",
    "packages/app/package.json": JSON.stringify({ name: "app", main: "src/index.ts" }),
    "packages/app/src/index.ts": 'import { add } from "../../lib/src/add";\nexport const total = add(1, 2);\n',
    "packages/app/src/view.tsx": "export const View = () => null;\n",
    "packages/lib/package.json": JSON.stringify({ name: "lib" }),
    "packages/lib/src/add.ts": "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
    "packages/lib/src/needles.ts":
      Array.from({ length: 300 }, (_, i) => `export const needle${i} = "needle number ${i}";`).join("\n") + "\n",
  };
  for (const [path, content] of Object.entries(files)) await kit.tool(monorepo, "write_file", { path, content });
  await bash(monorepo, `git init -q -b main && ${GIT} add . && ${GIT} commit -qm "monorepo: app and lib"`);
  await kit.tool(monorepo, "write_file", {
    path: "packages/lib/src/add.ts",
    content: "export const add = (a: number, b: number) => a + b;\n",
  });
  await kit.tool(monorepo, "write_file", {
    path: "packages/lib/src/sub.ts",
    content: "export const sub = (a: number, b: number) => a - b;\n",
  });
  // A Python package on a branch of its own with two commits and no AGENTS.md.
  const py: Record<string, string> = {
    "pyproject.toml": '[project]\nname = "pkg"\nversion = "0.1.0"\n',
    "src/pkg/__init__.py": "from .core import double\n",
    "src/pkg/core.py": "def double(x):\n    return 2 * x\n",
    "tests/test_core.py": "from pkg import double\n\ndef test_double():\n    assert double(2) == 4\n",
  };
  for (const [path, content] of Object.entries(py)) await kit.tool(pypkg, "write_file", { path, content });
  await bash(
    pypkg,
    `git init -q -b dev && ${GIT} add pyproject.toml && ${GIT} commit -qm "project file" && ${GIT} add . && ${GIT} commit -qm "the package and its test"`,
  );
}, 240_000);
afterAll(async () => kit?.close());

describe("context workspace", () => {
  it("describes the TypeScript monorepo: branch, dirty files, last commit, tree, languages, AGENTS.md, skill pointer", async () => {
    const client = await mcp(monorepo);
    const { isError, json } = await context(client, { scope: "workspace" });
    expect(isError).toBe(false);
    expect(json.scope).toBe("workspace");
    expect(json.root).toBe("/workspace");
    expect(json.git).toMatchObject({ repository: true, branch: "main", ahead: 0, behind: 0 });
    const git = json.git as {
      dirty: { path: string; status: string }[];
      lastCommits: { subject: string; author: string }[];
    };
    expect(git.dirty).toEqual(
      expect.arrayContaining([
        { path: "packages/lib/src/add.ts", status: "M" },
        { path: "packages/lib/src/sub.ts", status: "??" },
      ]),
    );
    expect(git.lastCommits.map((c) => c.subject)).toEqual(["monorepo: app and lib"]);
    expect(json.tree).toEqual(["AGENTS.md", "package.json", "packages/", "tsconfig.json"]);
    expect(json.languages).toEqual(
      expect.arrayContaining([
        { language: "TypeScript", files: 5 },
        { language: "JSON", files: 4 },
      ]),
    );
    expect((json.languages as { language: string }[])[0]!.language).toBe("TypeScript");
    expect(json.agentsMd).toMatchObject({ exists: true });
    expect(json.skillCatalog).toMatch(/^\d+ skills? \(\d+ active\): context \{"scope":"skills"\} lists them$/);
    await client.close();
  });

  it("describes the Python package: its own branch, two commits, a clean tree, no AGENTS.md", async () => {
    const client = await mcp(pypkg);
    const { json } = await context(client, { scope: "workspace" });
    expect(json.git).toMatchObject({ repository: true, branch: "dev", dirty: [] });
    expect((json.git as { lastCommits: { subject: string }[] }).lastCommits.map((c) => c.subject)).toEqual([
      "the package and its test",
      "project file",
    ]);
    expect(json.tree).toEqual(["pyproject.toml", "src/", "tests/"]);
    expect(json.languages).toEqual([
      { language: "Python", files: 3 },
      { language: "TOML", files: 1 },
    ]);
    expect(json.agentsMd).toEqual({ exists: false, bytes: 0 });
    await client.close();
  });
});

describe("context settings", () => {
  it("shows autonomy, network, limits with the observation caps, and pages the policy rules by query, offset and limit", async () => {
    for (const prefix of ["rm -rf", "curl", "wget", "docker"]) {
      const created = await kit.api("POST", "/api/policy-rules", {
        tool: "bash",
        commandPrefix: prefix,
        effect: "deny",
        mustMatch: [`${prefix} x`],
      });
      expect(created.status).toBe(201);
    }
    const client = await mcp(monorepo);
    const all = await context(client, { scope: "settings" });
    expect(all.json).toMatchObject({
      scope: "settings",
      sessionId: monorepo,
      autonomy: "yolo",
      network: "none",
      allowedTools: null,
      rulesTotal: 4,
      nextOffset: null,
    });
    const limits = all.json.limits as Record<string, number>;
    expect(limits["observationCapBytes.grep"]).toBe(GREP_CAP);
    expect(limits.observationPoolBytes).toBe(POOL);
    expect(limits.bashMaxTimeoutMs).toBe(600_000);
    const page = await context(client, { scope: "settings", offset: 1, limit: 2 });
    expect((page.json.policyRules as { commandPrefix: string }[]).map((r) => r.commandPrefix)).toEqual([
      "curl",
      "wget",
    ]);
    expect(page.json.nextOffset).toBe(3);
    const queried = await context(client, { scope: "settings", query: "WGET" });
    expect((queried.json.policyRules as { commandPrefix: string }[]).map((r) => r.commandPrefix)).toEqual(["wget"]);
    expect(queried.json.rulesTotal).toBe(1);
    await client.close();
  });
});

describe("context skills", () => {
  it("lists skills, loads one framed by the workspace root, and activates a model skill (a manual one is refused to an agent)", async () => {
    await installSkill(kit, {
      name: "py-tests",
      description: "How this package is tested.",
      body: "Run `python3 -m pytest tests/` from the root.\nSee src/pkg/core.py.\n",
    });
    await installSkill(kit, {
      name: "release",
      description: "Cutting a release.",
      body: "Tag and push.",
      activation: "manual",
    });
    const client = await mcp(pypkg);
    const listed = await context(client, { scope: "skills" });
    expect(listed.json.skills).toEqual(
      expect.arrayContaining([
        {
          name: "py-tests",
          description: "How this package is tested.",
          activation: "model",
          allowedTools: [],
          active: false,
          drifted: false,
        },
        {
          name: "release",
          description: "Cutting a release.",
          activation: "manual",
          allowedTools: [],
          active: false,
          drifted: false,
        },
      ]),
    );
    const loaded = await context(client, { scope: "skills", name: "py-tests" });
    expect(loaded.json.body).toBe(
      "Skill py-tests. Workspace root: /workspace. Paths in this skill are relative to the workspace root. The skill is mounted read-only at /skills/py-tests/ (SKILL.md; read_file, grep and glob read it there).\n---\nRun `python3 -m pytest tests/` from the root.\nSee src/pkg/core.py.\n",
    );
    const activated = await context(client, { scope: "skills", name: "py-tests", activate: true });
    expect(activated.json.skill).toMatchObject({ name: "py-tests", active: true });
    expect(
      ((await context(client, { scope: "skills" })).json.skills as { name: string; active: boolean }[]).find(
        (s) => s.name === "py-tests",
      )?.active,
    ).toBe(true);
    const manual = await context(client, { scope: "skills", name: "release", activate: true });
    expect(manual.isError).toBe(true);
    expect(manual.text).toMatch(
      /skill release has activation manual: only a person in the IDE or an operator may activate it/,
    );
    const missing = await context(client, { scope: "skills", name: "nope" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toBe("context: skill not found: nope");
    expect((await context(client, { scope: "skills", name: "py-tests", activate: false })).json.skill).toMatchObject({
      active: false,
    });
    await client.close();
  });
});

describe("the observation budget, recall and budget", () => {
  it("cuts a long skill at context's cap, with the rest readable through recall", async () => {
    const body =
      Array.from({ length: 2000 }, (_, i) => `Step ${i}: check src/pkg/core.py line ${i}.`).join("\n") + "\n";
    await installSkill(kit, { name: "long-guide", description: "A long guide.", body });
    const client = await mcp(pypkg);
    const loaded = await context(client, { scope: "skills", name: "long-guide" });
    expect(loaded.isError).toBe(false);
    expect(loaded.json.body).toMatch(/^Skill long-guide\. Workspace root: \/workspace\./);
    expect((loaded.json.body as string).length).toBeLessThan(body.length);
    const ref = /ref=(ovf_[0-9a-f]{24})/.exec(loaded.json.notice as string)![1]!;
    let offset = 0;
    let full = "";
    for (let page = 0; page < 40; page++) {
      const read = await context(client, { scope: "recall", ref, offset });
      full += read.json.content as string;
      if (read.json.done) break;
      offset = read.json.nextOffset as number;
    }
    expect((JSON.parse(full) as { body: string }).body.endsWith(body)).toBe(true);
    await client.close();
  });

  it("cuts a grep to its cap with exactly one notice line, and recall returns the rest", async () => {
    const client = await mcp(monorepo);
    const result = (await client.callTool({
      name: "grep",
      arguments: { pattern: "needle number", maxResults: 1000 },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(GREP_CAP);
    const cut = JSON.parse(text) as { matches: unknown[]; totalMatches: number; truncated: boolean; notice: string };
    expect(cut.truncated).toBe(true);
    expect(cut.totalMatches).toBe(300);
    expect(cut.matches.length).toBeLessThan(300);
    expect(result.structuredContent).toEqual(cut);
    // Exactly one notice, on one line, naming the ref, the bytes shown of the total and the next call.
    expect(text.match(/ref=/g)).toHaveLength(1);
    const notice =
      /^truncated: showed (\d+) of (\d+) bytes \(grep cap 2048 bytes\); ref=(ovf_[0-9a-f]{24}); next: context \{"scope":"recall","ref":"ovf_[0-9a-f]{24}"\}$/.exec(
        cut.notice,
      );
    expect(notice).not.toBeNull();
    const [, shown, total, ref] = notice!;
    expect(Number(shown)).toBe(Buffer.byteLength(text));

    let offset = 0;
    let body = "";
    for (let page = 0; page < 20; page++) {
      const read = await context(client, { scope: "recall", ref, offset });
      expect(read.isError).toBe(false);
      body += read.json.content as string;
      if (read.json.done) break;
      expect(read.json.next).toBe(`context {"scope":"recall","ref":"${ref}","offset":${read.json.nextOffset}}`);
      offset = read.json.nextOffset as number;
    }
    expect(Buffer.byteLength(body)).toBe(Number(total));
    const full = JSON.parse(body) as { matches: { content: string }[]; totalMatches: number };
    expect(full.matches).toHaveLength(300);
    expect(full.matches[299]!.content).toContain("needle number 299");
    await client.close();
  });

  it("refuses a ref of another session by name", async () => {
    const mine = await mcp(monorepo);
    const cut = JSON.parse(
      textOf(await mine.callTool({ name: "grep", arguments: { pattern: "needle", maxResults: 500 } })),
    ) as { notice: string };
    const ref = /ref=(ovf_[0-9a-f]{24})/.exec(cut.notice)![1]!;
    const other = await mcp(pypkg);
    const refused = await context(other, { scope: "recall", ref });
    expect(refused.isError).toBe(true);
    expect(refused.text).toBe(`context: recall: ref ${ref} belongs to another session`);
    const unknown = await context(other, { scope: "recall", ref: "ovf_000000000000000000000000" });
    expect(unknown.text).toBe("context: recall: unknown ref: ovf_000000000000000000000000");
    await Promise.all([mine.close(), other.close()]);
  });

  it("recalls a run's stored log by its run id", async () => {
    const { body } = await kit.tool<{ runId: string }>(monorepo, "bash", { command: "seq 1 2000" });
    const client = await mcp(monorepo);
    const read = await context(client, { scope: "recall", ref: body.runId, offset: 0, limit: 64 });
    expect(read.json).toMatchObject({ ref: body.runId, offset: 0, done: false });
    expect(read.json.content).toMatch(/^1\n2\n3\n/);
    await client.close();
  });

  it("shows what the turn used, and a spent pool answers with a notice three times, then an error on the 4th in a row", async () => {
    const client = await mcp(monorepo);
    const fresh = await context(client, { scope: "budget" });
    expect(fresh.json).toMatchObject({
      scope: "budget",
      poolBytes: POOL,
      usedBytes: 0,
      remainingBytes: POOL,
      exhaustedInARow: 0,
    });
    // One MCP request is one turn: a dispatch's tasks all draw from its pool. Each grep (about 21 KB whole)
    // is cut to the 2048-byte cap, so four of them spend all but a few hundred bytes of the 8192-byte pool.
    const grep = { tool: "grep", args: { pattern: "needle number", maxResults: 1000 } };
    const tasks = [
      ...Array.from({ length: 8 }, (_, i) => ({ ...grep, id: `g${i + 1}` })),
      { tool: "context", args: { scope: "budget" }, id: "budget" },
    ];
    // Over MCP: the dispatch fails on its 8th task (an isError result whose text lists each task).
    const viaMcp = (await client.callTool({
      name: "dispatch",
      arguments: { topology: "sequential", tasks },
    })) as CallToolResult;
    expect(viaMcp.isError).toBe(true);
    const lines = textOf(viaMcp).split("\n");
    for (const id of ["g1", "g2", "g3", "g4", "g5", "g6", "g7"]) expect(lines).toContain(`ok   ${id} grep`);
    expect(lines).toContain("FAIL g8 grep");
    expect(lines).toContain("FAIL budget context");
    // The same plan as one HTTP call (one turn too), whose result carries each task's output.
    const viaHttp = await kit.tool<{ ok: boolean; details: { tasks: { id: string; ok: boolean; output: string }[] } }>(
      monorepo,
      "dispatch",
      { topology: "sequential", tasks },
    );
    const outcomes = viaHttp.body.details.tasks;
    for (const served of outcomes.slice(0, 4)) {
      expect(served.ok, served.id).toBe(true);
      expect(served.output).toContain('"truncated":true');
    }
    for (const notice of outcomes.slice(4, 7)) {
      expect(notice.ok, notice.id).toBe(true);
      expect((JSON.parse(notice.output) as { notice: string }).notice).toMatch(
        /^budget exhausted: grep did not run: the observation budget of this turn is spent \(used \d+ of 8192 bytes\)/,
      );
    }
    expect(outcomes[7]!.ok).toBe(false);
    expect(outcomes[7]!.output).toMatch(
      /^grep: the observation budget of this turn is spent \(used \d+ of 8192 bytes\); this is call 4 in a row after it ran out/,
    );
    expect(outcomes[8]!.ok).toBe(false);
    expect(outcomes[8]!.output).toMatch(/^context: the observation budget of this turn is spent .*call 5 in a row/);
    // A new request is a new turn with a whole pool.
    expect((await context(client, { scope: "budget" })).json).toMatchObject({ usedBytes: 0, remainingBytes: POOL });
    await client.close();
  });
});
