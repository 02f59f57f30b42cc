import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../create-database";
import type { Repositories } from "./create-repositories";
import { openTestRepositories } from "./testing/open-test-repositories";

let repos: Repositories;
let db: Database;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ repos, db, close } = await openTestRepositories());
}, 60_000);
afterAll(() => close());

describe("McpServerRepository and McpToolPinRepository", () => {
  it("stores a config and reads it back validated, headers included; names clash per scope and owner", async () => {
    const stored = await repos.mcpServers.create("mcp_1", { name: "docs", transport: "http", scope: "user", url: "https://example.com/mcp", headers: { Authorization: "Bearer k" } }, "user_a");
    expect(stored).toMatchObject({ id: "mcp_1", valid: true, ownerId: "user_a", config: { url: "https://example.com/mcp", headers: { Authorization: "Bearer k" } } });
    await repos.mcpServers.create("mcp_2", { name: "fs", transport: "stdio", scope: "global", command: "node", args: ["server.js"] }, "user_op");
    expect(await repos.mcpServers.clashOf({ scope: "user", name: "docs" }, "user_a")).toBe("mcp_1");
    expect(await repos.mcpServers.clashOf({ scope: "user", name: "docs" }, "user_b")).toBeNull();
    expect(await repos.mcpServers.clashOf({ scope: "global", name: "fs" }, "user_b")).toBe("mcp_2");
    expect((await repos.mcpServers.list({ visibleTo: "user_b" })).map((s) => s.id)).toEqual(["mcp_2"]);
    expect((await repos.mcpServers.list()).map((s) => s.id)).toEqual(["mcp_2", "mcp_1"]);
    expect((await repos.mcpServers.listAll()).map((s) => s.id)).toEqual(["mcp_1", "mcp_2"]);
  });

  it("reads a row that no longer validates as invalid, naming the field", async () => {
    await db.mcpServer.update({ where: { id: "mcp_2" }, data: { argsJson: "not json" } });
    expect(await repos.mcpServers.get("mcp_2")).toMatchObject({ valid: false, scope: "global", ownerId: "user_op", problem: expect.stringMatching(/^args: /) });
  });

  it("pins a tool's schema, keeps an acceptance, and drops the pins with their server", async () => {
    await repos.mcpToolPins.upsert({ serverId: "mcp_1", toolName: "search", schemaHash: "h1", acceptedHash: "" });
    expect(await repos.mcpToolPins.get("mcp_1", "search")).toEqual({ serverId: "mcp_1", toolName: "search", schemaHash: "h1", acceptedHash: "" });
    await repos.mcpToolPins.upsert({ serverId: "mcp_1", toolName: "search", schemaHash: "h1", acceptedHash: "h1" });
    await repos.mcpToolPins.upsert({ serverId: "mcp_1", toolName: "fetch", schemaHash: "h2", acceptedHash: "" });
    expect((await repos.mcpToolPins.list("mcp_1")).map((p) => [p.toolName, p.acceptedHash])).toEqual([["fetch", ""], ["search", "h1"]]);
    await repos.mcpServers.delete("mcp_1");
    expect(await repos.mcpToolPins.list("mcp_1")).toEqual([]);
    expect(await repos.mcpServers.get("mcp_1")).toBeNull();
  });
});
