import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { FilesHashResult, ToolCallParams, ToolResult } from "@berth/protocol";
import type { SandboxDriver } from "@berth/sandbox";
import { FunctionToolCatalog } from "./function-tool-catalog";

const scope = { userId: "u1", sessionId: "s1" };
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const entry = (name: string, over: Record<string, unknown> = {}) => ({ name, description: `${name}.`, script: "t.py", interpreter: "python3", actionClass: "read", ...over });

/** A workspace holding one berth.tools.json (or none), behind the driver's request/call: what the catalogue reads through. */
class FakeWorkspace {
  text: string | null = null;
  /** Only this many bytes come back as the hash's preview (the agent's is 16 KiB). */
  previewBytes = 16 * 1024;
  down = false;
  readonly reads: string[] = [];

  readonly driver: Pick<SandboxDriver, "request" | "call"> = {
    request: <T>(_sessionId: string, method: string): Promise<T> => {
      this.reads.push(method);
      if (this.down) return Promise.reject(new Error("sandbox stopped"));
      const text = this.text;
      const result: FilesHashResult =
        text === null
          ? { files: [{ path: "berth.tools.json", sha256: null, bytes: null, note: "absent" }] }
          : {
              files: [{ path: "berth.tools.json", sha256: sha(text), bytes: Buffer.byteLength(text) }],
              preview: { path: "berth.tools.json", text: text.slice(0, this.previewBytes), truncated: Buffer.byteLength(text) > this.previewBytes },
            };
      return Promise.resolve(result as T);
    },
    call: (_sessionId: string, params: ToolCallParams): Promise<ToolResult> => {
      this.reads.push(params.tool);
      return Promise.resolve({ ok: true, output: "", details: { content: this.text ?? "" } });
    },
  };
}

function catalogue(workspace: FakeWorkspace) {
  return new FunctionToolCatalog({ driver: workspace.driver, reserved: () => ["read_file", "bash"] });
}
const names = (c: FunctionToolCatalog) => c.provider.list(scope).map((tool) => tool.spec.name);

describe("FunctionToolCatalog", () => {
  it("has nothing, and reports nothing, for a workspace without berth.tools.json", async () => {
    const workspace = new FakeWorkspace();
    const c = catalogue(workspace);
    expect(await c.report("s1")).toBeUndefined();
    expect(names(c)).toEqual([]);
  });

  it("re-reads the file only when its content hash changed", async () => {
    const workspace = new FakeWorkspace();
    const c = catalogue(workspace);
    workspace.text = JSON.stringify({ tools: [entry("one")] });
    await c.refresh("s1");
    expect(names(c)).toEqual(["one"]);
    await c.refresh("s1");
    expect(workspace.reads).toEqual(["files.hash", "files.hash"]);
    workspace.text = JSON.stringify({ tools: [entry("one"), entry("two")] });
    await c.refresh("s1");
    expect(names(c)).toEqual(["one", "two"]);
    expect(c.provider.resolve("two", scope)?.kind).toBe("function");
  });

  it("reads a file longer than the hash's preview with read_file", async () => {
    const workspace = new FakeWorkspace();
    workspace.previewBytes = 10;
    workspace.text = JSON.stringify({ tools: [entry("long")] });
    const c = catalogue(workspace);
    await c.refresh("s1");
    expect(workspace.reads).toEqual(["files.hash", "read_file"]);
    expect(names(c)).toEqual(["long"]);
  });

  it("names tools as MCP tools are named: sanitised, and a taken name suffixed, each change noted", async () => {
    const workspace = new FakeWorkspace();
    workspace.text = JSON.stringify({ tools: [entry("count.words"), entry("bash"), entry("dup"), entry("dup"), entry("user_1_tool_x")] });
    const c = catalogue(workspace);
    const report = await c.report("s1");
    const exposed = names(c);
    expect(exposed[0]).toBe("count_words");
    expect(exposed[1]).toMatch(/^bash_[0-9a-f]{6}$/);
    expect(exposed[2]).toBe("dup");
    expect(exposed[3]).toMatch(/^dup_[0-9a-f]{6}$/);
    expect(exposed[4]).toMatch(/^user_1_tool_x_[0-9a-f]{6}$/);
    expect(report?.notes).toHaveLength(4);
    expect(report?.notes[1]).toBe(`berth.tools.json: tools[1] (bash) is exposed as ${exposed[1]} (bash is taken)`);
    // The same file names them the same way every time.
    const again = catalogue(workspace);
    await again.refresh("s1");
    expect(names(again)).toEqual(exposed);
  });

  it("loads nothing from a malformed file and says why; a fixed file loads again", async () => {
    const workspace = new FakeWorkspace();
    workspace.text = JSON.stringify({ tools: [entry("ok"), entry("bad", { actionClass: "everything" })] });
    const c = catalogue(workspace);
    const report = await c.report("s1");
    expect(names(c)).toEqual([]);
    expect(report?.problems).toEqual([expect.stringMatching(/^berth\.tools\.json: tools\[1\] \(bad\): actionClass: must be one of read, .* \(got "everything"\)$/)]);
    workspace.text = JSON.stringify({ tools: [entry("ok")] });
    expect((await c.report("s1"))?.problems).toEqual([]);
    expect(names(c)).toEqual(["ok"]);
  });

  it("gives no tools and says why while the file cannot be read, and reads it again on the next call", async () => {
    const workspace = new FakeWorkspace();
    workspace.text = JSON.stringify({ tools: [entry("a")] });
    const c = catalogue(workspace);
    await c.refresh("s1");
    workspace.down = true;
    expect((await c.report("s1"))?.problems).toEqual(["berth.tools.json: could not be read: sandbox stopped"]);
    expect(names(c)).toEqual([]);
    expect(c.problems("s1")).toEqual(["berth.tools.json: could not be read: sandbox stopped"]);
    workspace.down = false;
    await c.refresh("s1");
    expect(names(c)).toEqual(["a"]);
    expect(c.problems("s1")).toEqual([]);
  });

  it("narrows to a request's functions, and forgets a removed session", async () => {
    const workspace = new FakeWorkspace();
    workspace.text = JSON.stringify({ tools: [entry("a"), entry("b")] });
    const c = catalogue(workspace);
    await c.refresh("s1");
    expect(c.provider.list({ ...scope, functions: ["b"] }).map((tool) => tool.spec.name)).toEqual(["b"]);
    expect(c.provider.resolve("a", { ...scope, functions: ["b"] })).toBeUndefined();
    expect(c.names("s1")).toEqual(["a", "b"]);
    c.forget("s1");
    expect(names(c)).toEqual([]);
  });
});
