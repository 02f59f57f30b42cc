import { describe, expect, it } from "vitest";
import { fromCallToolResult } from "./from-call-tool-result";

const origin = { serverId: "srv_1", serverName: "charts", tool: "plot" };

describe("fromCallToolResult", () => {
  it("keeps every content block exactly as the upstream sent it, unknown fields and annotations included", () => {
    const blocks = [
      { type: "text" as const, text: "chart:", annotations: { audience: ["assistant" as const], priority: 0.2 } },
      { type: "image" as const, mimeType: "image/png", data: "iVBORw0KGgo=", _meta: { "x/source": "plotter" }, title: "a newer field" },
      { type: "resource" as const, resource: { uri: "file:///data.csv", mimeType: "text/csv", text: "a,b\n1,2\n" } },
      { type: "resource_link" as const, uri: "file:///big.bin", name: "big.bin", size: 10 },
    ];
    const result = fromCallToolResult({ content: blocks }, origin);
    expect(result.content).toEqual(blocks);
    // Non-MCP callers read the stand-in.
    expect(result.output).toBe("chart:\n[image image/png, 8 bytes]\na,b\n1,2\n\n[resource file:///big.bin]");
  });

  it("passes structuredContent through unwrapped, and keeps it in details for the UI", () => {
    const result = fromCallToolResult({ content: [], structuredContent: { temperature: 21, conditions: "sun" } }, origin);
    expect(result.structuredContent).toEqual({ temperature: 21, conditions: "sun" });
    expect(result.details).toMatchObject({ server: "charts", tool: "plot", structuredContent: { temperature: 21, conditions: "sun" } });
  });

  it("names a block of a kind it does not know, for MCP callers too", () => {
    const result = fromCallToolResult({ content: [{ type: "hologram", data: "…" } as never] }, origin);
    expect(result.output).toBe("[hologram content]");
    expect(result.content).toEqual([{ type: "text", text: "[hologram content]" }]);
  });

  it("keeps an error's content and structuredContent too", () => {
    const result = fromCallToolResult({ isError: true, content: [{ type: "text", text: "quota" }], structuredContent: { retryAfter: 30 } }, origin);
    expect(result).toMatchObject({ ok: false, error: { code: "mcp_tool_error", message: "quota" }, structuredContent: { retryAfter: 30 } });
  });
});
