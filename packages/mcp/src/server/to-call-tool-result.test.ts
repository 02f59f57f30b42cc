import { describe, expect, it } from "vitest";
import { parkedCallResult, toCallToolResult, toolAnnotationsFor } from ".";

describe("toCallToolResult", () => {
  it("sends output as text and small details as structuredContent", () => {
    expect(toCallToolResult({ ok: true, output: "done", details: { n: 1 }, receiptId: "rcpt_1" })).toEqual({
      content: [{ type: "text", text: "done" }],
      structuredContent: { n: 1 },
      _meta: { "berth/receiptId": "rcpt_1" },
    });
  });

  it("always sends a success's details, however large (an outputSchema makes structuredContent required)", () => {
    const result = toCallToolResult({ ok: true, output: "big", details: { blob: "x".repeat(20_000) } });
    expect(result.structuredContent).toEqual({ blob: "x".repeat(20_000) });
  });

  it("passes content blocks and an upstream's structuredContent through unchanged", () => {
    const image = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png", annotations: { audience: ["user" as const], priority: 0.9 } };
    const link = { type: "resource_link" as const, uri: "file:///a.txt", name: "a.txt", _meta: { "x/y": 1 } };
    const result = toCallToolResult({
      ok: true,
      output: "[image image/png, 8 bytes]\n[resource file:///a.txt]",
      content: [image, link],
      structuredContent: { points: [1, 2] },
      details: { server: "charts", tool: "plot", capability: "plot" },
    });
    expect(result.content).toEqual([image, link]);
    expect(result.structuredContent).toEqual({ points: [1, 2] });
  });

  it("sends a failure's details nowhere but an upstream's structuredContent as it came", () => {
    expect(toCallToolResult({ ok: false, output: "no", details: { stage: "policy" } }).structuredContent).toBeUndefined();
    expect(
      toCallToolResult({ ok: false, output: "no", structuredContent: { reason: "quota" } }).structuredContent,
    ).toEqual({ reason: "quota" });
  });

  it("marks failures isError with the message, even when output is empty", () => {
    expect(
      toCallToolResult({ ok: false, output: "", error: { code: "denied", message: "policy denies bash" } }),
    ).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "policy denies bash" }],
      _meta: { "berth/errorCode": "denied" },
    });
  });

  it("names the approval id of a call still parked", () => {
    const result = parkedCallResult(
      { status: "parked", approvalId: "apr_9", text: "bash rm", sha256: "f".repeat(64) },
      120_000,
    );
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("apr_9");
    expect(JSON.stringify(result.content)).toContain("120s");
  });
});

describe("toolAnnotationsFor", () => {
  it("derives hints from the action class", () => {
    expect(toolAnnotationsFor("read")).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: false,
    });
    for (const c of ["write", "execute", "system_modify", "git_destructive"] as const)
      expect(toolAnnotationsFor(c).destructiveHint).toBe(true);
    expect(toolAnnotationsFor("network")).toMatchObject({ openWorldHint: true, readOnlyHint: false });
  });
});
