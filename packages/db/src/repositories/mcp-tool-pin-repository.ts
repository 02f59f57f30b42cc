import type { McpToolPin } from "@berth/protocol";
import type { Database } from "../create-database";

type PinRow = { serverId: string; toolName: string; schemaHash: string; acceptedHash: string | null };

function toPin(row: PinRow): McpToolPin {
  // A null acceptedHash was never accepted: "" differs from every hash, so the tool stays held.
  return { serverId: row.serverId, toolName: row.toolName, schemaHash: row.schemaHash, acceptedHash: row.acceptedHash ?? "" };
}

/**
 * Schema pins of MCP tools (the SchemaPinStore of @berth/mcp, structurally), unique on serverId + toolName, so
 * an operator's acceptance holds across runner restarts and is seen by every runner of a scale-out.
 */
export class McpToolPinRepository {
  constructor(
    private readonly db: Database,
    private readonly newId: () => string,
  ) {}

  async get(serverId: string, toolName: string): Promise<McpToolPin | undefined> {
    const row = await this.db.mcpToolPin.findUnique({ where: { serverId_toolName: { serverId, toolName } } });
    return row ? toPin(row) : undefined;
  }

  /** By tool name. */
  async list(serverId: string): Promise<McpToolPin[]> {
    const rows = await this.db.mcpToolPin.findMany({ where: { serverId }, orderBy: { toolName: "asc" } });
    return rows.map(toPin);
  }

  async upsert(pin: McpToolPin): Promise<void> {
    const data = { schemaHash: pin.schemaHash, acceptedHash: pin.acceptedHash || null };
    await this.db.mcpToolPin.upsert({
      where: { serverId_toolName: { serverId: pin.serverId, toolName: pin.toolName } },
      update: data,
      create: { id: this.newId(), serverId: pin.serverId, toolName: pin.toolName, ...data },
    });
  }
}
