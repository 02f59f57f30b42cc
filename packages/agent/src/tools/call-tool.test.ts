import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolHarness, detailsOf, errorOf, type ToolHarness } from "../test-support/tool-harness";

let h: ToolHarness;
beforeEach(async () => {
  h = await createToolHarness();
});
afterEach(() => h.cleanup());

describe("argument handling for every tool", () => {
  it("accepts the whole argument object sent as a JSON string", async () => {
    await h.call("write_file", JSON.stringify({ path: "a.txt", content: "hi" }));
    expect(await readFile(path.join(h.root, "a.txt"), "utf8")).toBe("hi");
  });

  it("refuses arguments that are not an object", async () => {
    expect(errorOf(await h.call("read_file", "not json"))).toBe(
      "Invalid arguments for read_file: arguments: expected an object (got a string that is not a JSON object)",
    );
    expect(errorOf(await h.call("read_file", [1]))).toBe(
      "Invalid arguments for read_file: arguments: expected an object (got an array)",
    );
  });

  it("names every bad field with its value", async () => {
    const message = errorOf(await h.call("grep", { pattern: 5, context: -1, maxResults: "many" }));
    expect(message).toMatch(/^Invalid arguments for grep: /);
    expect(message).toContain("pattern: expected string, received number (got 5)");
    expect(message).toContain("context: must be at least 0 (got -1)");
    expect(message).toContain('maxResults: expected number, received string (got "many")');
  });

  it("cuts long bad values in the message", async () => {
    const message = errorOf(await h.call("read_file", { path: "a", startLine: "x".repeat(500) }));
    expect(message.length).toBeLessThan(300);
    expect(message).toContain("(500 characters)");
  });

  it("refuses lone surrogates anywhere in the arguments, naming the field", async () => {
    expect(errorOf(await h.call("edit", { path: "a", old_string: "x", new_string: "\udc00" }))).toBe(
      "Invalid arguments for edit: new_string: contains invalid UTF-8",
    );
  });

  it("a refused call changes nothing", async () => {
    await writeFile(path.join(h.root, "keep.txt"), "keep");
    errorOf(await h.call("write_file", { path: "keep.txt", content: 12 }));
    errorOf(await h.call("apply_patch", { patch: "" }));
    expect(await readFile(path.join(h.root, "keep.txt"), "utf8")).toBe("keep");
  });

  it("lets a boolean default apply when omitted and validates it when given", async () => {
    await writeFile(path.join(h.root, "a.txt"), "x x");
    expect(
      errorOf(await h.call("edit", { path: "a.txt", old_string: "x", new_string: "y", replaceAll: "yes" })),
    ).toMatch(/replaceAll: expected boolean/);
    expect(
      detailsOf(await h.call("edit", { path: "a.txt", old_string: "x", new_string: "y", replaceAll: true })),
    ).toMatchObject({ replacements: 2 });
  });
});
