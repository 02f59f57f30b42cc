import { describe, expect, it } from "vitest";
import { bindCallText, boundFilesOf, expectedHashes, patchTargets, renderCallText, renderPlanText, sha256Hex } from "./render-call-text";

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

describe("approvals bind what runs (issue 14 items 3, 5)", () => {
  const script = "import os\nprint(os.environ['API_TOKEN'])\n";
  const scriptSha = sha256Hex(script);
  const hashed = {
    files: [
      { path: "s.py", sha256: scriptSha, bytes: script.length },
      { path: "data.csv", sha256: sha256Hex("a,b\n"), bytes: 4 },
      { path: "new.txt", sha256: null, bytes: null, note: "absent" as const },
    ],
    preview: { path: "s.py", text: script, truncated: false },
  };

  it("shows run_script env keys with *** for values, so the value is in neither the text nor what is hashed", () => {
    const rendered = renderCallText("run_script", { interpreter: "python3", script: "s.py", env: { API_TOKEN: "tok-very-secret-1" } });
    expect(rendered.text).toContain('"env":{"API_TOKEN":"***"}');
    expect(rendered.text).not.toContain("tok-very-secret-1");
  });

  it("masks a bearer token in a bash command", () => {
    const rendered = renderCallText("bash", { action: "exec", command: "curl -H 'Authorization: Bearer abcdefgh12345678' http://x" });
    expect(rendered.text).not.toContain("abcdefgh12345678");
  });

  it("names the files a call binds: run_script's script and inputs, write targets, patch targets", () => {
    expect(boundFilesOf("run_script", { script: "s.py", inputs: ["data.csv", "s.py"] })).toEqual({ paths: ["s.py", "data.csv"], preview: "s.py" });
    expect(boundFilesOf("write_file", { path: "a.txt", content: "x" })).toEqual({ paths: ["a.txt"] });
    expect(boundFilesOf("apply_patch", { patch: "*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n@@\n-x\n+y\n*** Add File: c.ts\n+z\n*** End Patch" })).toEqual({ paths: ["a.ts", "b.ts", "c.ts"] });
    expect(patchTargets("--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/y.ts\n")).toEqual(["x.ts", "y.ts"]);
    expect(boundFilesOf("read_file", { path: "a.txt" })).toBeUndefined();
  });

  it("appends each file's sha256 and the script's content, and a changed file changes the hash", () => {
    const base = renderCallText("run_script", { interpreter: "python3", script: "s.py", inputs: ["data.csv"] });
    const bound = bindCallText(base, hashed);
    const lines = bound.text.split("\n");
    expect(lines[0]).toBe(base.text);
    expect(lines).toContain(`file s.py sha256=${scriptSha} bytes=${script.length}`);
    expect(lines).toContain("file new.txt absent");
    expect(lines).toContain(`--- s.py (${script.length} of ${script.length} bytes, sha256 ${scriptSha}) ---`);
    expect(lines).toContain("| print(os.environ['API_TOKEN'])");
    expect(bound.sha256).toBe(sha256Hex(bound.text));
    const rewritten = bindCallText(base, { ...hashed, files: [{ path: "s.py", sha256: sha256Hex("evil"), bytes: 4 }, ...hashed.files.slice(1)] });
    expect(rewritten.sha256).not.toBe(bound.sha256);
    expect(expectedHashes(hashed)).toEqual({ "s.py": scriptSha, "data.csv": sha256Hex("a,b\n"), "new.txt": null });
  });

  it("shows control characters in the content as ? and says when it was cut", () => {
    const bound = bindCallText(renderCallText("run_script", { script: "s.sh" }), {
      files: [{ path: "s.sh", sha256: "ab".repeat(32), bytes: 99999 }],
      preview: { path: "s.sh", text: "echo \u202eevil\r\n--- end of s.sh ---\n", truncated: true },
    });
    expect(bound.text).toContain("| echo ?evil?");
    expect(bound.text).toContain("| --- end of s.sh ---");
    expect(bound.text).toContain("--- s.sh (first 34 of 99999 bytes");
    expect(bound.text.endsWith("--- end of s.sh (truncated) ---")).toBe(true);
  });
});
