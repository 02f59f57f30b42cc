import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUILTIN_TOOL_NAMES, BUILTIN_TOOL_TABLE } from "@berth/protocol";
import type { BuiltinToolName } from "@berth/protocol";
import { placementOf } from "../registry/tool-placement";
import type { AnyToolSpec } from "../registry/tool-spec";
import { renderToolTable, TOOL_TABLE_DOC_END, TOOL_TABLE_DOC_START } from "../registry/render-tool-table";
import { ToolRouter } from "../router/tool-router";
import { BUILTIN_TOOLS, BUILTIN_TOOL_SPECS } from "./builtin-tools";

/**
 * The contract every built-in keeps, one row per name (typed: a new name does not compile until it has
 * its row here): arguments its schema takes, arguments it refuses and the field the refusal names.
 */
const CONTRACT: { readonly [K in BuiltinToolName]: { valid: unknown; invalid: unknown; field: RegExp } } = {
  read_file: { valid: { path: "a.txt" }, invalid: {}, field: /path/ },
  write_file: { valid: { path: "a.txt", content: "x" }, invalid: { path: "a.txt" }, field: /content/ },
  edit: { valid: { path: "a.txt", old_string: "a", new_string: "b" }, invalid: { path: "a.txt", new_string: "b" }, field: /old_string/ },
  apply_patch: { valid: { patch: "*** Begin Patch\n*** End Patch" }, invalid: { patch: 3 }, field: /patch/ },
  glob: { valid: { pattern: "**/*.ts" }, invalid: { pattern: 3 }, field: /pattern/ },
  grep: { valid: { pattern: "todo" }, invalid: { pattern: "todo", maxResults: "many" }, field: /maxResults/ },
  code_nav: { valid: { mode: "symbol", query: "main" }, invalid: { mode: "symbol", query: "" }, field: /query/ },
  bash: { valid: { command: "ls" }, invalid: { command: "ls", timeoutMs: "soon" }, field: /timeoutMs/ },
  run_script: { valid: { interpreter: "python3", script: "a.py" }, invalid: { interpreter: "python3" }, field: /script/ },
  update_agents_md: { valid: { action: "read" }, invalid: { action: "read", content: 3 }, field: /content/ },
  gateway: { valid: { op: "find", query: "x" }, invalid: { query: 3 }, field: /query/ },
  monitor: { valid: { mode: "list" }, invalid: { mode: "list", limit: "all" }, field: /limit/ },
  dispatch: { valid: { tasks: [{ tool: "read_file", args: { path: "a" } }] }, invalid: { tasks: [] }, field: /tasks/ },
  context: { valid: { scope: "workspace" }, invalid: { scope: "everything" }, field: /scope/ },
};

describe("the built-in tool table", () => {
  it("every name has its spec, carrying its own name, in the table's order", () => {
    expect(BUILTIN_TOOLS.map((spec) => spec.name)).toEqual([...BUILTIN_TOOL_NAMES]);
    for (const name of BUILTIN_TOOL_NAMES) expect(BUILTIN_TOOL_SPECS[name].name).toBe(name);
  });

  it("placement, executionMode and the surface class come from the table", () => {
    for (const name of BUILTIN_TOOL_NAMES) {
      const facts = BUILTIN_TOOL_TABLE[name];
      const spec = BUILTIN_TOOL_SPECS[name];
      expect(placementOf(name), name).toBe(facts.placement);
      expect(spec.executionMode, name).toBe(facts.concurrency);
      expect(spec.actionClass, name).toBe(facts.actionClass);
    }
    expect(placementOf("some_mcp_tool")).toBe("gateway");
  });

  it("the direct surface is exactly the direct rows", () => {
    const router = new ToolRouter(BUILTIN_TOOLS);
    const direct = router.directSurface({ userId: "u1", sessionId: "s1" }).map((tool) => tool.spec.name);
    expect(direct).toEqual(BUILTIN_TOOL_NAMES.filter((name) => BUILTIN_TOOL_TABLE[name].placement === "direct"));
  });

  it("each tool takes its valid arguments and refuses invalid ones by field", () => {
    for (const name of BUILTIN_TOOL_NAMES) {
      const { valid, invalid, field } = CONTRACT[name];
      const schema = BUILTIN_TOOL_SPECS[name].argsSchema;
      expect(schema.safeParse(valid).success, `${name} valid`).toBe(true);
      const refused = schema.safeParse(invalid);
      expect(refused.success, `${name} invalid`).toBe(false);
      expect(refused.error?.issues.map((issue) => issue.path.join(".")).join(" "), name).toMatch(field);
    }
  });

  it("a call makes a run exactly when the table gives the tool a run kind", () => {
    for (const name of BUILTIN_TOOL_NAMES) {
      const spec: AnyToolSpec = BUILTIN_TOOL_SPECS[name];
      const args: unknown = spec.argsSchema.parse(CONTRACT[name].valid);
      expect(spec.createsRun(args), name).toBe(BUILTIN_TOOL_TABLE[name].runKind !== "none");
    }
  });

  it("docs/tools.md shows the table as it is", () => {
    const doc = readFileSync(new URL("../../../../docs/tools.md", import.meta.url), "utf8");
    const start = doc.indexOf(TOOL_TABLE_DOC_START);
    const end = doc.indexOf(TOOL_TABLE_DOC_END);
    expect(start, "docs/tools.md has the tool-table markers").toBeGreaterThan(-1);
    const shown = doc.slice(start + TOOL_TABLE_DOC_START.length, end).trim();
    expect(shown, `docs/tools.md's tool table should read:\n${renderToolTable()}`).toBe(renderToolTable());
  });
});
