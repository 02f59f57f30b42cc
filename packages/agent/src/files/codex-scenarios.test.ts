import { cp, readFile, readdir } from "node:fs/promises";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolHarness, errorOf, type ToolHarness } from "../test-support/tool-harness";

// Codex's own end-to-end scenarios (packages/agent/test-fixtures/codex-apply-patch/README.md), run the way
// Codex's harness runs them: copy input/, apply patch.txt, compare the whole tree with expected/.
const FIXTURES = path.resolve(import.meta.dirname, "../../test-fixtures/codex-apply-patch");
const SCENARIOS = readdirSync(FIXTURES).filter((name) => /^\d{3}_/.test(name));
/** Scenarios whose patch Codex refuses (its tree stays as it was); the rest succeed. */
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

/** Every file (its text) and folder under `root`, keyed by posix path, as Codex's harness compares them. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  if (!existsSync(root)) return tree;
  const walk = async (dir: string, prefix: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        tree[`${rel}/`] = "(folder)";
        await walk(path.join(dir, entry.name), rel);
      } else if (entry.isFile()) {
        tree[rel] = await readFile(path.join(dir, entry.name), "utf8");
      }
    }
  };
  await walk(root, "");
  return tree;
}

let h: ToolHarness;
beforeEach(async () => {
  h = await createToolHarness();
});
afterEach(() => h.cleanup());

async function run(scenario: string) {
  const dir = path.join(FIXTURES, scenario);
  if (existsSync(path.join(dir, "input"))) await cp(path.join(dir, "input"), h.root, { recursive: true });
  const before = await snapshot(h.root);
  const result = await h.call("apply_patch", { patch: await readFile(path.join(dir, "patch.txt"), "utf8") });
  return { result, before, after: await snapshot(h.root), expected: await snapshot(path.join(dir, "expected")) };
}

describe("Codex apply_patch scenarios against the agent's apply_patch", () => {
  it("has all 23 scenarios, vendored as upstream has them", async () => {
    expect(SCENARIOS).toHaveLength(23);
    const trees = await Promise.all(SCENARIOS.map((s) => snapshot(path.join(FIXTURES, s))));
    const texts = trees.flatMap((tree) => Object.values(tree));
    expect(texts.filter((t) => t.includes("apply-patch/tests/fixtures/scenarios/"))).toEqual([]);
    const noNewline = path.join(FIXTURES, "014_update_file_appends_trailing_newline/input/no_newline.txt");
    expect(await readFile(noNewline, "utf8")).toBe("no newline at end");
  });

  for (const scenario of SCENARIOS.filter((s) => s !== PARTIAL)) {
    it(scenario, async () => {
      const { result, after, expected } = await run(scenario);
      expect(after).toEqual(expected);
      expect(result.ok, result.output).toBe(!REFUSED.has(scenario));
    });
  }

  it(`${PARTIAL}: atomic instead, nothing changes and the error names the failing operation`, async () => {
    const { result, before, after, expected } = await run(PARTIAL);
    expect(expected).toEqual({ "created.txt": "hello\n" });
    expect(after).toEqual(before);
    expect(after).toEqual({});
    expect(errorOf(result)).toBe("File does not exist: missing.txt");
  });
});
