import { CodeNavArgsSchema, type ToolResult } from "@berth/protocol";
import { describe, expect, it } from "vitest";
import { BUILTIN_TOOLS } from "../builtin/builtin-tools";
import { CODE_NAV_SURFACE } from "../code-nav/code-nav-surface";
import { assertBuiltinsRegistered } from "./assert-builtins-registered";
import { defineTool, fixedClass } from "./define-tool";
import { isLazyTool, lazyTool, surfaceHash, surfaceOf } from "./lazy-tool";
import type { SandboxCaller, ToolContext } from "./tool-spec";

/**
 * The surface of every lazy built-in, pinned. A change to a lazy tool's name, description, parameters,
 * class or execution mode fails here first: update the hash on purpose, together with docs/tools.md.
 */
const PINNED_SURFACES: Readonly<Record<string, string>> = {
  code_nav: "dec5cb0b7d232c3a7e7b425d80f23fe44fb0c9180841b42346009ad9e220d131",
  context: "6625247a0b679b7764cca58912f3635a3c4d27dfeb923612b7b2b80bb881c733",
};

const sandbox: SandboxCaller = { callTool: () => Promise.resolve({ ok: true, output: "from sandbox" }) };
const ctx: ToolContext = { sessionId: "s1", userId: "u1", callId: "c1", caller: "agent", sandbox };
const ok = (output: string): ToolResult => ({ ok: true, output });

describe("lazy tools", () => {
  it("every lazy built-in's surface hash is pinned, and every pin names a lazy built-in", () => {
    const lazy = BUILTIN_TOOLS.filter(isLazyTool);
    expect(Object.fromEntries(lazy.map((spec) => [spec.name, surfaceHash(surfaceOf(spec))]))).toEqual(PINNED_SURFACES);
  });

  it("each shipped lazy built-in loads an implementation that matches its registered surface", async () => {
    for (const spec of BUILTIN_TOOLS.filter(isLazyTool)) {
      expect(spec.lazy.loaded()).toBe(false);
      // A fake sandbox and no context host: the tool answers as itself, after loading, not with a drift error.
      const result = await spec.run(spec.name === "code_nav" ? { mode: "entries" } : { scope: "budget" }, ctx);
      expect(result.error?.code, `${spec.name}: ${result.output}`).not.toBe("internal");
      expect(result.output).not.toMatch(/surface drift/);
      expect(spec.lazy.loaded()).toBe(true);
    }
  });

  it("registers the surface without loading, loads once on the first call, then runs the implementation", async () => {
    let loads = 0;
    const tool = lazyTool({
      ...CODE_NAV_SURFACE,
      load: () => {
        loads++;
        return Promise.resolve(defineTool({ ...CODE_NAV_SURFACE, run: () => Promise.resolve(ok("loaded")) }));
      },
    });
    expect(tool.parameters).toEqual(defineTool({ ...CODE_NAV_SURFACE, run: () => Promise.resolve(ok("")) }).parameters);
    expect(tool.classify(CodeNavArgsSchema.parse({ mode: "entries" })).actionClass).toBe("read");
    expect(loads).toBe(0);
    expect(tool.lazy.loaded()).toBe(false);
    const args = CodeNavArgsSchema.parse({ mode: "symbol", query: "main" });
    expect((await tool.run(args, ctx)).output).toBe("loaded");
    expect((await tool.run(args, ctx)).output).toBe("loaded");
    expect(loads).toBe(1);
    expect(tool.lazy.loaded()).toBe(true);
  });

  it("refuses an implementation whose surface drifted, and never runs it", async () => {
    let ran = false;
    const drifted = defineTool({
      ...CODE_NAV_SURFACE,
      description: `${CODE_NAV_SURFACE.description} Now also edits files.`,
      run: () => {
        ran = true;
        return Promise.resolve(ok("drifted"));
      },
    });
    const tool = lazyTool({ ...CODE_NAV_SURFACE, load: () => Promise.resolve(drifted) });
    const result = await tool.run(CodeNavArgsSchema.parse({ mode: "entries" }), ctx);
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("surface_drift");
    expect(result.error?.message).toMatch(
      /^lazy tool surface drift for code_nav: registered [0-9a-f]{12}, loaded [0-9a-f]{12}$/,
    );
    expect(ran).toBe(false);
    expect(tool.lazy.loaded()).toBe(false);
  });

  it("a changed class is drift too", async () => {
    const asWrite = {
      ...defineTool({ ...CODE_NAV_SURFACE, run: () => Promise.resolve(ok("")) }),
      actionClass: "write" as const,
    };
    const tool = lazyTool({ ...CODE_NAV_SURFACE, load: () => Promise.resolve(asWrite) });
    expect((await tool.run(CodeNavArgsSchema.parse({ mode: "entries" }), ctx)).error?.message).toMatch(
      /^lazy tool surface drift for code_nav/,
    );
  });

  it("a load that throws is tried again on the next call", async () => {
    let attempts = 0;
    const tool = lazyTool({
      ...CODE_NAV_SURFACE,
      load: () => {
        attempts++;
        if (attempts === 1) return Promise.reject(new Error("module not found"));
        return Promise.resolve(defineTool({ ...CODE_NAV_SURFACE, run: () => Promise.resolve(ok("second time")) }));
      },
    });
    const args = CodeNavArgsSchema.parse({ mode: "entries" });
    await expect(tool.run(args, ctx)).rejects.toThrow("module not found");
    expect((await tool.run(args, ctx)).output).toBe("second time");
  });
});

describe("the runner's start check", () => {
  it("passes for the built-in table as shipped", () => {
    expect(() => assertBuiltinsRegistered(BUILTIN_TOOLS)).not.toThrow();
  });

  it("fails closed, naming a declared built-in that is missing, doubled, or a stranger posing as one", () => {
    const withoutCodeNav = BUILTIN_TOOLS.filter((spec) => spec.name !== "code_nav");
    expect(() => assertBuiltinsRegistered(withoutCodeNav)).toThrow(
      "built-in tools: code_nav is declared but not registered",
    );
    const grep = BUILTIN_TOOLS.find((spec) => spec.name === "grep");
    expect(() => assertBuiltinsRegistered([...BUILTIN_TOOLS, grep!])).toThrow("grep is registered 2 times");
    const stranger = {
      ...defineTool({ ...CODE_NAV_SURFACE, classify: fixedClass("read"), run: () => Promise.resolve(ok("")) }),
      name: "shadow",
    };
    expect(() => assertBuiltinsRegistered([...BUILTIN_TOOLS, stranger])).toThrow(
      "shadow is registered as a built-in but not declared",
    );
  });
});
