import type { McpServerConfig } from "@berth/protocol";
import { McpServerConfigSchema } from "@berth/protocol";
import { z } from "zod";
import type { Database } from "../create-database";
import type { McpServerModel } from "../generated/sqlite/models";

/**
 * A registered server as stored. Its config (headers included: they may be API keys, never returned or logged)
 * is validated when read; a row that no longer validates (hand-edited, an older schema) says why instead.
 */
export type StoredMcpServer = { id: string; scope: string; createdAt: string } & (
  | { valid: true; ownerId: string; config: McpServerConfig }
  | { valid: false; ownerId: string | null; problem: string }
);

type McpServerRow = McpServerModel;

/** argsJson / headersJson; a column that is not JSON reads as null, so validation names the field. */
const JsonTextSchema = z.string().transform((text): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
});

function toStored(row: McpServerRow): StoredMcpServer {
  const config = {
    name: row.name,
    transport: row.transport,
    scope: row.scope,
    ...(row.transport === "stdio"
      ? { command: row.command ?? undefined, args: JsonTextSchema.parse(row.argsJson) }
      : { url: row.url ?? undefined, ...(row.headersJson === "{}" ? {} : { headers: JsonTextSchema.parse(row.headersJson) }) }),
  };
  const base = { id: row.id, scope: row.scope, createdAt: row.createdAt.toISOString() };
  const parsed = McpServerConfigSchema.safeParse(config);
  if (parsed.success && row.ownerId) return { ...base, valid: true, ownerId: row.ownerId, config: parsed.data };
  const issue = parsed.error?.issues[0];
  return { ...base, valid: false, ownerId: row.ownerId, problem: issue ? `${issue.path.join(".") || "config"}: ${issue.message}` : "ownerId: missing" };
}

/** MCP servers registered through /api/mcp-servers; names are unique per scope (and per owner in `user`). */
export class McpServerRepository {
  constructor(private readonly db: Database) {}

  /** Oldest first (the order the gateway loads them). */
  async listAll(): Promise<StoredMcpServer[]> {
    return (await this.db.mcpServer.findMany({ orderBy: { createdAt: "asc" } })).map(toStored);
  }

  /** By scope, then name; `visibleTo` keeps the global servers and that user's own. */
  async list(filter: { visibleTo?: string } = {}): Promise<StoredMcpServer[]> {
    const rows = await this.db.mcpServer.findMany({
      where: filter.visibleTo ? { OR: [{ scope: "global" }, { scope: "user", ownerId: filter.visibleTo }] } : {},
      orderBy: [{ scope: "asc" }, { name: "asc" }],
    });
    return rows.map(toStored);
  }

  async get(id: string): Promise<StoredMcpServer | null> {
    const row = await this.db.mcpServer.findUnique({ where: { id } });
    return row ? toStored(row) : null;
  }

  /** The id of a server that already has this name where `config` would go, or null. */
  async clashOf(config: Pick<McpServerConfig, "scope" | "name">, ownerId: string): Promise<string | null> {
    const clash = await this.db.mcpServer.findFirst({
      where: { scope: config.scope, name: config.name, ...(config.scope === "user" ? { ownerId } : {}) },
      select: { id: true },
    });
    return clash?.id ?? null;
  }

  async create(id: string, config: McpServerConfig, ownerId: string): Promise<StoredMcpServer> {
    const row = await this.db.mcpServer.create({
      data: {
        id,
        name: config.name,
        transport: config.transport,
        command: config.command ?? null,
        argsJson: JSON.stringify(config.args ?? []),
        url: config.url ?? null,
        headersJson: JSON.stringify(config.headers ?? {}),
        scope: config.scope,
        ownerId,
      },
    });
    return toStored(row);
  }

  /** Its tool pins go with it (onDelete: Cascade). */
  async delete(id: string): Promise<void> {
    await this.db.mcpServer.delete({ where: { id } });
  }
}
