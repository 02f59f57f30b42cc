import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRunner, type TestRunner } from "../testing/runner-test-kit";

// Codex's own apply_patch scenarios (packages/agent/test-fixtures/codex-apply-patch/README.md), each in a
// fresh session (a workspace as empty as Codex's temporary folder): input/ written with write_file, patch.txt
// sent to the real apply_patch tool in the container, the tree read back with glob, read_file and bash.
const FIXTURES = path.resolve(import.meta.dirname, "../../../../packages/agent/test-fixtures/codex-apply-patch");
const SCENARIOS = readdirSync(FIXTURES).filter((name) => /^\d{3}_/.test(name));
const REFUSED = new Set([
  "005_rejects_empty_patch",
  "006_rejects_missing_context",
  "007_rejects_missing_file_delete",
  "008_rejects_empty_update_hunk",
  "009_requires_existing_file_for_update",
  "012_delete_directory_fails",
  "013_rejects_invalid_hunk_header",
]);
const PARTIAL = "015_failure_after_partial_success_leaves_changes";

type Result = { ok: boolean; output: string; details?: Record<string, unknown>; error?: { message: string } };
type Tree = Record<string, string>;

/** Files (their text) and folders under `root` on this machine, keyed as `read` keys them. */
function localTree(root: string, prefix = "", tree: Tree = {}): Tree {
  if (!existsSync(root)) return tree;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      tree[`${rel}/`] = "(folder)";
      localTree(path.join(root, entry.name), rel, tree);
    } else if (entry.isFile()) {
      tree[rel] = readFileSync(path.join(root, entry.name), "utf8");
    }
  }
  return tree;
}

let kit: TestRunner;
beforeAll(async () => {
  kit = await startTestRunner();
});
afterAll(async () => kit?.close());

async function inFreshSession(scenario: string) {
  const session = await kit.createSession({ autonomy: "trusted" });
  const call = async (tool: string, args: unknown) => {
    const { status, body } = await kit.tool<Result>(session, tool, args);
    expect(status, `${tool} ${JSON.stringify(body)}`).toBe(200);
    return body;
  };
  /** The workspace as the tools see it: glob for the files, read_file for each, bash for the folders. */
  const read = async (): Promise<Tree> => {
    const tree: Tree = {};
    const globbed = await call("glob", { pattern: "**/*", includeIgnored: true });
    for (const file of globbed.details?.files as string[]) {
      const content = await call("read_file", { path: file });
      expect(content.ok, content.output).toBe(true);
      tree[file] = content.details?.content as string;
    }
    const dirs = await call("bash", { command: "find . -mindepth 1 -type d | sed 's|^\\./||' | sort" });
    for (const dir of String(dirs.details?.stdout).split("\n").filter(Boolean)) tree[`${dir}/`] = "(folder)";
    return tree;
  };

  const dir = path.join(FIXTURES, scenario);
  const input = localTree(path.join(dir, "input"));
  for (const [rel, content] of Object.entries(input)) {
    if (!rel.endsWith("/")) expect((await call("write_file", { path: rel, content })).ok).toBe(true);
  }
  const before = await read();
  expect(before).toEqual(input);
  const result = await call("apply_patch", { patch: readFileSync(path.join(dir, "patch.txt"), "utf8") });
  const after = await read();
  await kit.api("DELETE", `/api/sessions/${session}`);
  return { result, before, after, expected: localTree(path.join(dir, "expected")) };
}

describe("Codex apply_patch scenarios through the runner's apply_patch tool (real Docker)", () => {
  it("has all 23 scenarios", () => {
    expect(SCENARIOS).toHaveLength(23);
  });

  for (const scenario of SCENARIOS.filter((s) => s !== PARTIAL)) {
    it(scenario, async () => {
      const { result, after, expected } = await inFreshSession(scenario);
      expect(after).toEqual(expected);
      expect(result.ok, result.output).toBe(!REFUSED.has(scenario));
    });
  }

  it(`${PARTIAL}: atomic instead, nothing changes and the error names the failing operation`, async () => {
    const { result, before, after, expected } = await inFreshSession(PARTIAL);
    expect(expected).toEqual({ "created.txt": "hello\n" });
    expect(after).toEqual(before);
    expect(after).toEqual({});
    expect(result.ok).toBe(false);
    expect(result.error?.message).toBe("File does not exist: missing.txt");
  });
});
