import { describe, expect, it } from "vitest";
import { renderCallText, renderPlanText, sha256Hex } from "./render-call-text";

describe("renderCallText", () => {
  it("is canonical: key order does not change the text or the hash", () => {
    const a = renderCallText("bash", { command: "ls", cwd: "src" });
    const b = renderCallText("bash", { cwd: "src", command: "ls" });
    expect(a.text).toBe('bash {"command":"ls","cwd":"src"}');
    expect(a.sha256).toBe(b.sha256);
    expect(a.sha256).toBe(sha256Hex(a.text));
  });

  it("changed arguments change the hash", () => {
    expect(renderCallText("bash", { command: "ls" }).sha256).not.toBe(
      renderCallText("bash", { command: "ls -a" }).sha256,
    );
  });

  it("escapes bidi and C1 controls so the operator sees them, and keeps calls distinct", () => {
    const tricky = renderCallText("bash", { command: "echo \u202eevil" });
    expect(tricky.text).toBe('bash {"command":"echo \\u202eevil"}');
    expect(tricky.sha256).not.toBe(renderCallText("bash", { command: "echo ?evil" }).sha256);
  });

  it("renders a dispatch call as its plan text", () => {
    const plan = {
      topology: "sequential" as const,
      tasks: [
        { tool: "bash", args: { command: "npm test" }, id: "t1" },
        { tool: "write_file", args: { path: "a.txt", content: "line1\nline2\u0007" }, after: "t1" },
      ],
    };
    const rendered = renderCallText("dispatch", plan);
    const lines = rendered.text.split("\n");
    expect(lines[0]).toBe("dispatch plan: topology=sequential tasks=2");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(`bash args_sha256=${sha256Hex('{"command":"npm test"}')}`);
    expect(lines[1]).toContain('{"command":"npm test"}');
    expect(lines[2]).toContain("after=t1 write_file");
    // Control characters never reach the operator's screen raw.
    // eslint-disable-next-line no-control-regex
    expect(rendered.text.split("\n").slice(1).join("")).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(rendered.text).toBe(renderPlanText(plan));
  });

  it("shows control characters in a plan preview as ?", () => {
    const text = renderPlanText({
      topology: "parallel",
      tasks: [{ tool: "bash\u0007", args: { command: "x\u202ey" } }],
    });
    expect(text.split("\n")[1]).toContain("bash?");
    expect(text.split("\n")[1]).toContain('{"command":"x?y"}');
  });
});
