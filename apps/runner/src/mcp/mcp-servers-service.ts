import type { Database } from "@berth/db";
import { SchemaPinError } from "@berth/mcp";
import type { McpClientGateway, McpServerEntry } from "@berth/mcp";
import { AppError, McpServerConfigSchema, redactMcpServer } from "@berth/protocol";
import type { McpServerConfig, McpToolPin, McpToolPinStatus } from "@berth/protocol";
import type { Principal } from "../auth/tokens";
import { newId } from "../auth/tokens";

type ServerRow = Awaited<ReturnType<Database["mcpServer"]["findUniqueOrThrow"]>>;

/** What the API returns: the config without header values (they may be API keys), only their names. */
export type McpServerView = ReturnType<typeof redactMcpServer<McpServerEntry & { ownerUserId: string; createdAt: string }>>;

export interface McpToolPinView extends McpToolPin {
  status: McpToolPinStatus;
}

/** Another runner of a scale-out may have changed the servers: reload them at most this often. */
const RELOAD_AFTER_MS = 10_000;

const canRegisterGlobal = (p: Principal) => p.role === "admin" || p.role === "operator";
const canAccept = canRegisterGlobal;

/**
 * MCP servers registered through `/api/mcp-servers`: rows in McpServer (headers in headersJson, never
 * returned or logged), mirrored into the client gateway at boot and on every change. `scope: "global"`
 * servers are registered by operators and admins for everyone; `scope: "user"` ones belong to their
 * registrant and only that user's sessions see their tools.
 */
export class McpServersService {
  #loadedAt = 0;
  #loading: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      db: Database;
      gateway: McpClientGateway;
      /** A stored row that no longer validates (hand-edited, older schema): skipped, reported here. */
      onInvalid?: (serverId: string, message: string) => void;
    },
  ) {}

  /** Loads every stored server into the gateway (boot), replacing what it had. */
  async load(): Promise<void> {
    const rows = await this.deps.db.mcpServer.findMany({ orderBy: { createdAt: "asc" } });
    const entries: McpServerEntry[] = [];
    for (const row of rows) {
      const entry = this.#entryOf(row);
      if (entry) entries.push(entry);
    }
    await this.deps.gateway.setServers(entries);
    this.#loadedAt = Date.now();
  }

  /** Reloads when the last load is older than a few seconds, so changes made on other runners arrive. */
  async refreshIfStale(): Promise<void> {
    if (Date.now() - this.#loadedAt < RELOAD_AFTER_MS) return;
    this.#loading ??= this.load().finally(() => {
      this.#loading = undefined;
    });
    await this.#loading;
  }

  async create(body: McpServerConfig, principal: Principal): Promise<McpServerView> {
    if (principal.role === "viewer") throw new AppError({ code: "forbidden", message: "Viewers cannot register MCP servers" });
    if (body.scope === "global" && !canRegisterGlobal(principal)) {
      throw new AppError({ code: "forbidden", message: `scope: "global" needs the operator or admin role (you are ${principal.role}); register it with scope: "user" instead` });
    }
    const refused = await this.deps.gateway.addressRefusal(body);
    if (refused) throw new AppError({ code: "bad_request", message: `url: ${refused.message}` });
    // Unique per scope: global names among all global servers, user names among the caller's own.
    const clash = await this.deps.db.mcpServer.findFirst({
      where: { scope: body.scope, name: body.name, ...(body.scope === "user" ? { ownerId: principal.userId } : {}) },
      select: { id: true },
    });
    if (clash) throw new AppError({ code: "conflict", message: `name: an MCP server named ${JSON.stringify(body.name)} already exists in scope ${body.scope} (${clash.id})` });
    const row = await this.deps.db.mcpServer.create({
      data: {
        id: newId("mcp"),
        name: body.name,
        transport: body.transport,
        command: body.command ?? null,
        argsJson: JSON.stringify(body.args ?? []),
        url: body.url ?? null,
        headersJson: JSON.stringify(body.headers ?? {}),
        scope: body.scope,
        ownerId: principal.userId,
      },
    });
    const entry = this.#entryOf(row);
    if (!entry) throw new AppError({ code: "internal", message: `MCP server ${row.id} did not validate after it was stored` });
    this.deps.gateway.upsertServer(entry);
    return view(entry, row);
  }

  /** Global servers and the caller's own; an admin sees every user's too (to be able to remove them). */
  async list(principal: Principal): Promise<McpServerView[]> {
    const rows = await this.deps.db.mcpServer.findMany({
      where: principal.role === "admin" ? {} : { OR: [{ scope: "global" }, { scope: "user", ownerId: principal.userId }] },
      orderBy: [{ scope: "asc" }, { name: "asc" }],
    });
    const views: McpServerView[] = [];
    for (const row of rows) {
      const entry = this.#entryOf(row);
      if (entry) views.push(view(entry, row));
    }
    return views;
  }

  /** The owner or an admin; someone else's user server is 404 (its existence is not leaked). */
  async remove(id: string, principal: Principal): Promise<void> {
    const row = await this.#visibleRow(id, principal);
    if (row.ownerId !== principal.userId && principal.role !== "admin") {
      throw new AppError({ code: "forbidden", message: `Only the MCP server's owner or an admin can remove ${row.name}` });
    }
    // Pins go with the server (onDelete: Cascade).
    await this.deps.db.mcpServer.delete({ where: { id: row.id } });
    await this.deps.gateway.removeServer(row.id);
  }

  /** The server's tools as last seen with their pin status; an operator reads the hash to accept here. */
  async pins(id: string, principal: Principal): Promise<McpToolPinView[]> {
    const row = await this.#visibleRow(id, principal);
    const pins = await this.deps.db.mcpToolPin.findMany({ where: { serverId: row.id }, orderBy: { toolName: "asc" } });
    return pins.map((pin) => ({
      serverId: pin.serverId,
      toolName: pin.toolName,
      schemaHash: pin.schemaHash,
      acceptedHash: pin.acceptedHash ?? "",
      status: pin.schemaHash === pin.acceptedHash ? "accepted" : "held",
    }));
  }

  /** An operator accepts the changed schema they reviewed (by its hash); the tool stops asking at once. */
  async acceptTool(id: string, body: { toolName: string; schemaHash: string }, principal: Principal): Promise<McpToolPinView> {
    if (!canAccept(principal)) throw new AppError({ code: "forbidden", message: `Accepting a changed MCP tool needs the operator role (you are ${principal.role})` });
    const row = await this.#visibleRow(id, principal);
    try {
      const pin = await this.deps.gateway.acceptToolSchema(row.id, body.toolName, body.schemaHash);
      return { ...pin, status: "accepted" };
    } catch (error) {
      if (error instanceof SchemaPinError) {
        throw new AppError({ code: error.code === "mcp_pin_unknown" ? "not_found" : "conflict", message: error.message, cause: error });
      }
      throw error;
    }
  }

  async #visibleRow(id: string, principal: Principal): Promise<ServerRow> {
    const row = await this.deps.db.mcpServer.findUnique({ where: { id } });
    const visible = row && (row.scope === "global" || row.ownerId === principal.userId || principal.role === "admin" || principal.role === "operator");
    if (!row || !visible) throw new AppError({ code: "not_found", message: `MCP server not found: ${id}` });
    return row;
  }

  #entryOf(row: ServerRow): McpServerEntry | undefined {
    const config = {
      name: row.name,
      transport: row.transport,
      scope: row.scope,
      ...(row.transport === "stdio"
        ? { command: row.command ?? undefined, args: parseJson(row.argsJson) }
        : { url: row.url ?? undefined, ...(row.headersJson === "{}" ? {} : { headers: parseJson(row.headersJson) }) }),
    };
    const parsed = McpServerConfigSchema.safeParse(config);
    if (!parsed.success || !row.ownerId) {
      const issue = parsed.error?.issues[0];
      this.deps.onInvalid?.(row.id, issue ? `${issue.path.join(".") || "config"}: ${issue.message}` : "ownerId: missing");
      return undefined;
    }
    return { ...parsed.data, id: row.id, ownerUserId: row.ownerId };
  }
}

/** Stored JSON columns; a broken one fails validation (naming the field) instead of throwing. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function view(entry: McpServerEntry, row: ServerRow): McpServerView {
  return redactMcpServer({ ...entry, ownerUserId: row.ownerId ?? "", createdAt: row.createdAt.toISOString() });
}
