import { describe, expect, it } from "vitest";
import { useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories();

describe("McpServerRepository and McpToolPinRepository", () => {
  it("stores a config and reads it back validated, headers included; names clash per scope and owner", async () => {
    const stored = await t.repos.mcpServers.create(
      "mcp_1",
      {
        name: "docs",
        transport: "http",
        scope: "user",
        url: "https://example.com/mcp",
        headers: { Authorization: "Bearer k" },
      },
      "user_a",
    );
    expect(stored).toMatchObject({
      id: "mcp_1",
      valid: true,
      ownerId: "user_a",
      config: { url: "https://example.com/mcp", headers: { Authorization: "Bearer k" } },
    });
    await t.repos.mcpServers.create(
      "mcp_2",
      { name: "fs", transport: "stdio", scope: "global", command: "node", args: ["server.js"] },
      "user_op",
    );
    expect(await t.repos.mcpServers.clashOf({ scope: "user", name: "docs" }, "user_a")).toBe("mcp_1");
    expect(await t.repos.mcpServers.clashOf({ scope: "user", name: "docs" }, "user_b")).toBeNull();
    expect(await t.repos.mcpServers.clashOf({ scope: "global", name: "fs" }, "user_b")).toBe("mcp_2");
    expect((await t.repos.mcpServers.list({ visibleTo: "user_b" })).map((s) => s.id)).toEqual(["mcp_2"]);
    expect((await t.repos.mcpServers.list()).map((s) => s.id)).toEqual(["mcp_2", "mcp_1"]);
    expect((await t.repos.mcpServers.listAll()).map((s) => s.id)).toEqual(["mcp_1", "mcp_2"]);
  });

  it("reads a row that no longer validates as invalid, naming the field", async () => {
    await t.db.mcpServer.update({ where: { id: "mcp_2" }, data: { argsJson: "not json" } });
    expect(await t.repos.mcpServers.get("mcp_2")).toMatchObject({
      valid: false,
      scope: "global",
      ownerId: "user_op",
      problem: expect.stringMatching(/^args: /),
    });
  });

  it("pins a tool's schema, keeps an acceptance, and drops the pins with their server", async () => {
    await t.repos.mcpToolPins.upsert({ serverId: "mcp_1", toolName: "search", schemaHash: "h1", acceptedHash: "" });
    expect(await t.repos.mcpToolPins.get("mcp_1", "search")).toEqual({
      serverId: "mcp_1",
      toolName: "search",
      schemaHash: "h1",
      acceptedHash: "",
    });
    await t.repos.mcpToolPins.upsert({ serverId: "mcp_1", toolName: "search", schemaHash: "h1", acceptedHash: "h1" });
    await t.repos.mcpToolPins.upsert({ serverId: "mcp_1", toolName: "fetch", schemaHash: "h2", acceptedHash: "" });
    expect((await t.repos.mcpToolPins.list("mcp_1")).map((p) => [p.toolName, p.acceptedHash])).toEqual([
      ["fetch", ""],
      ["search", "h1"],
    ]);
    await t.repos.mcpServers.delete("mcp_1");
    expect(await t.repos.mcpToolPins.list("mcp_1")).toEqual([]);
    expect(await t.repos.mcpServers.get("mcp_1")).toBeNull();
  });
});
