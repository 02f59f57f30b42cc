import { describe, expect, it } from "vitest";
import { McpServerConfigSchema, McpServerRecordSchema, redactMcpServer } from "@berth/protocol";
import { InMemorySchemaPinStore } from "../pinning";
import { McpClientGateway, actionClassOfMcpTool, fromCallToolResult } from ".";

describe("McpServerConfig (protocol)", () => {
  it("accepts a stdio and an http server", () => {
    expect(
      McpServerConfigSchema.safeParse({
        name: "fs",
        transport: "stdio",
        command: "mcp-fs",
        args: ["/workspace"],
        scope: "global",
      }).success,
    ).toBe(true);
    expect(
      McpServerConfigSchema.safeParse({
        name: "gh",
        transport: "http",
        url: "https://mcp.example.com/mcp",
        headers: { Authorization: "Bearer x" },
        scope: "user",
      }).success,
    ).toBe(true);
  });

  it("names the field and the rule when a transport's fields are wrong", () => {
    const noCommand = McpServerConfigSchema.safeParse({ name: "fs", transport: "stdio", scope: "global" });
    expect(noCommand.error?.issues[0]).toMatchObject({
      path: ["command"],
      message: "is required when transport is stdio",
    });
    const badUrl = McpServerConfigSchema.safeParse({
      name: "gh",
      transport: "http",
      url: "file:///etc/passwd",
      scope: "global",
    });
    expect(badUrl.error?.issues[0]?.path).toEqual(["url"]);
    const mixed = McpServerConfigSchema.safeParse({
      name: "gh",
      transport: "http",
      url: "http://x",
      command: "sh",
      scope: "global",
    });
    expect(mixed.error?.issues[0]?.path).toEqual(["command"]);
    const header = McpServerConfigSchema.safeParse({
      name: "gh",
      transport: "http",
      url: "http://x",
      headers: { "X-A": "a\r\nInjected: 1" },
      scope: "global",
    });
    expect(header.success).toBe(false);
  });

  it("stores records with an owner and never returns header values", () => {
    const record = {
      id: "mcp_1",
      ownerUserId: "1",
      createdAt: "2026-01-01T00:00:00Z",
      name: "gh",
      transport: "http",
      url: "https://x/mcp",
      headers: { Authorization: "Bearer secret" },
      scope: "user",
    };
    expect(McpServerRecordSchema.safeParse(record).success).toBe(true);
    const shown = redactMcpServer(record);
    expect(JSON.stringify(shown)).not.toContain("secret");
    expect(shown.headerNames).toEqual(["Authorization"]);
  });

  it("the gateway refuses an invalid entry and a user server without an owner", () => {
    const gateway = new McpClientGateway({ pins: new InMemorySchemaPinStore() });
    expect(() => gateway.upsertServer({ id: "a", name: "a", transport: "http", scope: "global" } as never)).toThrow(
      /url is required/,
    );
    expect(() =>
      gateway.upsertServer({ id: "b", name: "b", transport: "http", url: "http://x", scope: "user" }),
    ).toThrow(/ownerUserId/);
  });
});

describe("MCP results and classes", () => {
  it("names non-text content instead of inlining it, and keeps structured content in details", () => {
    const result = fromCallToolResult(
      {
        content: [
          { type: "text", text: "chart:" },
          { type: "image", mimeType: "image/png", data: "AAAA" },
        ],
        structuredContent: { points: 3 },
      },
      { serverId: "s", serverName: "charts", tool: "plot" },
    );
    expect(result).toMatchObject({
      ok: true,
      output: "chart:\n[image image/png, 3 bytes]",
      details: { structuredContent: { points: 3 } },
      trace: { mcpServer: "charts" },
    });
    expect(
      fromCallToolResult({ content: [], structuredContent: { n: 1 } }, { serverId: "s", serverName: "x", tool: "t" })
        .output,
    ).toBe('{"n":1}');
  });

  it("does not trust upstream annotations unless told to", () => {
    const readOnly = { annotations: { readOnlyHint: true, openWorldHint: false } };
    expect(actionClassOfMcpTool({ ...readOnly, transport: "http" })).toBe("network");
    expect(actionClassOfMcpTool({ ...readOnly, transport: "stdio" })).toBe("unknown");
    expect(actionClassOfMcpTool({ ...readOnly, transport: "stdio" }, { trustAnnotations: true })).toBe("read");
  });
});
