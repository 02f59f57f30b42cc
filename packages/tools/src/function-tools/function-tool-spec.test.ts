import { describe, expect, it } from "vitest";
import type { ToolResult } from "@berth/protocol";
import { admit } from "../admission/admit";
import { BUILTIN_TOOLS } from "../builtin/builtin-tools";
import type { SandboxCaller, ToolContext } from "../registry/tool-spec";
import { ScopedTools } from "../router/scoped-tools";
import { ToolRouter, type ResolvedTool, type ToolProvider } from "../router/tool-router";
import { admittedClass, functionToolSpec } from "./function-tool-spec";
import type { FunctionToolDeclaration } from "./parse-function-tools-file";

const declaration = (over: Partial<FunctionToolDeclaration> = {}): FunctionToolDeclaration => ({
  name: "count_lines",
  description: "Count the lines of a file.",
  parameters: { type: "object", properties: { path: { type: "string" }, count: { type: "integer", default: 1 } }, required: ["path"] },
  script: "tools/count.py",
  interpreter: "python3",
  actionClass: "read",
  ...over,
});

/** A router whose function layer holds the given tools (the runner's catalogue stands behind the same interface). */
function scopedTools(...tools: ResolvedTool[]): ScopedTools {
  const provider: ToolProvider = {
    name: "function",
    resolve: (name) => tools.find((tool) => tool.spec.name === name),
    list: () => tools,
  };
  return new ScopedTools(new ToolRouter(BUILTIN_TOOLS, [provider]), { userId: "u1", sessionId: "s1" });
}
const resolved = (over: Partial<FunctionToolDeclaration> = {}, name = over.name ?? "count_lines"): ResolvedTool => ({
  spec: functionToolSpec(declaration(over), name),
  kind: "function",
  origin: "function",
});

const admitCall = (registry: ScopedTools, tool: string, args: unknown) =>
  admit({ sessionId: "s1", tool, args, caller: "agent" }, { registry, autonomy: "default", workspaceRoot: "/workspace" });

describe("functionToolSpec", () => {
  it("refuses bad arguments before anything runs, naming the field and the bad value", () => {
    const result = admitCall(scopedTools(resolved()), "count_lines", { path: "a.txt", count: "x" });
    expect(result.verdict).toBe("deny");
    expect(result.stage).toBe("arguments");
    expect(result.reason).toBe('count_lines: invalid arguments: count: expected integer, got "x"');
  });

  it("refuses arguments too large to pass as one run_script argument", () => {
    const result = admitCall(scopedTools(resolved()), "count_lines", { path: "x".repeat(5000) });
    expect(result.reason).toMatch(/^count_lines: invalid arguments: arguments: must be at most 4096 bytes as JSON \(got 50\d\d bytes\)$/);
  });

  it("is admitted under its own name; a declared read or write is admitted as execute, a higher class stays", () => {
    const registry = scopedTools(
      resolved(),
      resolved({ name: "deploy", actionClass: "execute" }),
      resolved({ name: "fetch_data", actionClass: "network" }),
    );
    // A script declared read is still a workspace script an agent may have written: it asks like bash would.
    const counted = admitCall(registry, "count_lines", { path: "a.txt" });
    expect(counted).toMatchObject({ verdict: "ask", actionClass: "execute", tool: "count_lines" });
    expect(admitCall(registry, "deploy", { path: "a.txt" })).toMatchObject({ verdict: "ask", actionClass: "execute", tool: "deploy" });
    expect(admitCall(registry, "fetch_data", { path: "a.txt" })).toMatchObject({ actionClass: "network", tool: "fetch_data" });
    expect([admittedClass("read"), admittedClass("write"), admittedClass("system_modify")]).toEqual(["execute", "execute", "system_modify"]);
  });

  it("runs as run_script with the validated arguments (defaults filled) as one JSON argument", async () => {
    const calls: { tool: string; args: unknown; callId: string }[] = [];
    const sandbox: SandboxCaller = {
      callTool: (tool, args, opts) => {
        calls.push({ tool, args, callId: opts.callId });
        return Promise.resolve({ ok: true, output: "run_script succeeded", details: { outcome: "succeeded" } } satisfies ToolResult);
      },
    };
    const ctx: ToolContext = { sessionId: "s1", userId: "u1", callId: "run_1", caller: "agent", sandbox };
    const spec = functionToolSpec(declaration({ timeoutMs: 5000 }), "count_lines");
    const validated = spec.argsSchema.parse({ path: "a.txt" });
    const result = await spec.run(validated, ctx);
    expect(calls).toEqual([
      { tool: "run_script", args: { interpreter: "python3", script: "tools/count.py", args: ['{"path":"a.txt","count":1}'], timeoutMs: 5000 }, callId: "run_1" },
    ]);
    expect(result.details).toMatchObject({ outcome: "succeeded", functionTool: "count_lines" });
  });

  it("is a run, and an approval binds its script and the declaration file", () => {
    const spec = functionToolSpec(declaration({ actionClass: "execute" }), "deploy");
    expect(spec.createsRun({})).toBe(true);
    expect(spec.runKind?.({})).toBe("run_script");
    expect(spec.runsAs).toBe("run_script");
    expect(spec.boundFiles?.({})).toEqual({ paths: ["tools/count.py", "berth.tools.json"], preview: "tools/count.py" });
    expect(spec.changedPaths?.({}, { ok: true, output: "" })).toEqual(["."]);
    expect(functionToolSpec(declaration(), "count_lines").changedPaths?.({}, { ok: true, output: "" })).toEqual([]);
  });

  it("never shadows a built-in: the router resolves the built-in's name first", () => {
    const registry = scopedTools(resolved({ name: "read_file" }, "read_file"));
    expect(registry.resolve("read_file")?.kind).toBe("builtin");
  });
});
