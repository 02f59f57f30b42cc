import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolHarness, detailsOf, errorOf, type ToolHarness } from "../test-support/tool-harness";

let h: ToolHarness;
beforeEach(async () => {
  h = await createToolHarness();
});
afterEach(() => h.cleanup());

const agentsMd = () => readFile(path.join(h.root, "AGENTS.md"), "utf8");

describe("update_agents_md", () => {
  it("reads a missing file as exists:false with empty content", async () => {
    const result = await h.call("update_agents_md", {});
    expect(result.details).toMatchObject({ exists: false, content: "" });
    expect(result.output).toBe("");
  });

  it("writes, reads back and appends notes on their own lines", async () => {
    expect(
      detailsOf(await h.call("update_agents_md", { action: "write", content: "# Notes\n- use pnpm" })),
    ).toMatchObject({ exists: true, bytesWritten: 18 });
    await h.call("update_agents_md", { action: "append", text: "- tests: npm test" });
    expect(await agentsMd()).toBe("# Notes\n- use pnpm\n- tests: npm test\n");
    const read = await h.call("update_agents_md", { action: "read" });
    expect(read.details).toMatchObject({ exists: true, content: "# Notes\n- use pnpm\n- tests: npm test\n" });
    expect(read.output).toBe("# Notes\n- use pnpm\n- tests: npm test\n");
  });

  it("appends to a missing file by creating it", async () => {
    await h.call("update_agents_md", { action: "append", content: "first" });
    expect(await agentsMd()).toBe("first\n");
  });

  it("refuses a write without content, an unknown action, and an AGENTS.md linked outside", async () => {
    expect(errorOf(await h.call("update_agents_md", { action: "write" }))).toBe("content: required for action=write");
    expect(errorOf(await h.call("update_agents_md", { action: "delete" }))).toBe(
      "Unsupported update_agents_md action: delete",
    );
    const outside = path.join(h.stateDir, "outside.md");
    await mkdir(h.stateDir, { recursive: true });
    await writeFile(outside, "secret");
    await symlink(outside, path.join(h.root, "AGENTS.md"));
    expect(errorOf(await h.call("update_agents_md", { action: "read" }))).toBe(
      "Path escapes workspace root: AGENTS.md",
    );
    expect(errorOf(await h.call("update_agents_md", { action: "write", content: "x" }))).toBe(
      "Path escapes workspace root: AGENTS.md",
    );
    expect(await readFile(outside, "utf8")).toBe("secret");
  });
});
