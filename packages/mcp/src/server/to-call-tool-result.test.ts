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

  it("leaves out details too large to be worth sending twice", () => {
    const result = toCallToolResult({ ok: true, output: "big", details: { blob: "x".repeat(20_000) } });
    expect(result.structuredContent).toBeUndefined();
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
