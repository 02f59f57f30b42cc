import { describe, expect, it } from "vitest";
import type { McpServerEntry } from "./gateway-types";
import { type UpstreamTool, projectMcpTools } from "./mcp-tool-projection";

const tool = (name: string, schemaHash = `h-${name}`): UpstreamTool => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: "object" },
  schemaHash,
});

const globalServer: McpServerEntry = {
  id: "g1",
  name: "docs",
  transport: "http",
  url: "https://docs.example",
  scope: "global",
};
const userServer: McpServerEntry = {
  id: "u1",
  name: "mine",
  transport: "http",
  url: "https://mine.example",
  scope: "user",
  ownerUserId: "7",
};

describe("projectMcpTools", () => {
  it("lists user tools first under their user_ name, then shared ones, and holds a tool whose schema changed", () => {
    const listed = new Map<string, UpstreamTool[]>([
      ["g1", [tool("search"), tool("fetch", "h-new")]],
      ["u1", [tool("notes")]],
    ]);
    const tools = projectMcpTools({
      visible: [globalServer, userServer],
      toolsOf: (entry) => listed.get(entry.id),
      acceptedHashOf: (_serverId, name) => (name === "fetch" ? "h-old" : `h-${name}`),
      reserved: [],
    });
    expect(tools.map((t) => [t.name, t.origin, t.status])).toEqual([
      ["user_7_tool_notes", "user", "accepted"],
      ["fetch", "global", "held"],
      ["search", "global", "accepted"],
    ]);
    expect(tools[1]).toMatchObject({
      upstreamName: "fetch",
      serverId: "g1",
      schemaHash: "h-new",
      acceptedHash: "h-old",
    });
  });

  it("gives a shared tool that looks like a user's tool a prefix, a reserved name a suffix, and skips unconnected servers", () => {
    const tools = projectMcpTools({
      visible: [globalServer, { ...globalServer, id: "g2", name: "other" }],
      toolsOf: (entry) => (entry.id === "g1" ? [tool("user_1_tool_x"), tool("read_file")] : undefined),
      acceptedHashOf: (_serverId, name) => `h-${name}`,
      reserved: ["read_file"],
    });
    expect(tools.map((t) => t.upstreamName)).toEqual(["read_file", "user_1_tool_x"]);
    expect(tools[0]!.name).toMatch(/^read_file_[0-9a-f]+$/);
    expect(tools[1]!.name).toBe("tool_user_1_tool_x");
  });
});
