import type { Repositories, StoredMcpServer } from "@berth/db";
import { SchemaPinError } from "@berth/mcp";
import type { McpClientGateway, McpServerEntry } from "@berth/mcp";
import { AppError, redactMcpServer, redactUrl, secretValues, urlSecrets } from "@berth/protocol";
import type { McpServerConfig, McpServerView, McpToolPinView } from "@berth/protocol";
import { authorize, listScope } from "../auth/authorize";
import type { Principal } from "../auth/tokens";
import { newId } from "../auth/tokens";

// What the API returns (McpServerViewSchema): the config without header values (they may be API keys), only
// their names, and its URL without userinfo.
export type { McpServerView, McpToolPinView };

/** Another runner of a scale-out may have changed the servers: reload them at most this often. */
const RELOAD_AFTER_MS = 10_000;

/** Global servers and users' own are two resources of the Roles table (docs/api.md). */
const resourceOf = (scope: string) => (scope === "global" ? "globalMcpServer" : "mcpServer");

/**
 * MCP servers registered through `/api/mcp-servers`: rows in McpServer (headers in headersJson, never
 * returned or logged), mirrored into the client gateway at boot and on every change. `scope: "global"`
 * servers are registered by operators and admins for everyone; `scope: "user"` ones belong to their
 * registrant and only that user's sessions see their tools.
 */
export class McpServersService {
  #loadedAt = 0;
  /** Per server, the values that are secret (header values, URL userinfo): masked in every log line about it. */
  readonly #secrets = new Map<string, string[]>();
  #loading: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      repos: Pick<Repositories, "mcpServers" | "mcpToolPins">;
      gateway: McpClientGateway;
      /** A stored row that no longer validates (hand-edited, older schema): skipped, reported here. */
      onInvalid?: (serverId: string, message: string) => void;
    },
  ) {}

  /** Loads every stored server into the gateway (boot), replacing what it had. */
  async load(): Promise<void> {
    const rows = await this.deps.repos.mcpServers.listAll();
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
    authorize(principal, resourceOf(body.scope), "create");
    const refused = await this.deps.gateway.addressRefusal(body);
    if (refused) throw new AppError({ code: "bad_request", message: `url: ${refused.message}` });
    // Unique per scope: global names among all global servers, user names among the caller's own.
    const clash = await this.deps.repos.mcpServers.clashOf(body, principal.userId);
    if (clash) throw new AppError({ code: "conflict", message: `name: an MCP server named ${JSON.stringify(body.name)} already exists in scope ${body.scope} (${clash})` });
    const row = await this.deps.repos.mcpServers.create(newId("mcp"), body, principal.userId);
    const entry = this.#entryOf(row);
    if (!entry) throw new AppError({ code: "internal", message: `MCP server ${row.id} did not validate after it was stored` });
    this.deps.gateway.upsertServer(entry);
    return view(entry, row);
  }

  /** Global servers and the caller's own; an admin sees every user's too (to be able to remove them). */
  async list(principal: Principal): Promise<McpServerView[]> {
    authorize(principal, "globalMcpServer", "list");
    const { ownerId } = listScope(principal, "mcpServer", "list");
    const rows = await this.deps.repos.mcpServers.list(ownerId ? { visibleTo: ownerId } : {});
    const views: McpServerView[] = [];
    for (const row of rows) {
      const entry = this.#entryOf(row);
      if (entry) views.push(view(entry, row));
    }
    return views;
  }

  /** A user server: its owner or an admin; a global one: an operator or admin. Someone else's user server is 404. */
  async remove(id: string, principal: Principal): Promise<void> {
    const row = await this.#authorizedRow(id, principal, "delete");
    // Pins go with the server (onDelete: Cascade).
    await this.deps.repos.mcpServers.delete(row.id);
    await this.deps.gateway.removeServer(row.id);
  }

  /** The server's tools as last seen with their pin status; an operator reads the hash to accept here. */
  async pins(id: string, principal: Principal): Promise<McpToolPinView[]> {
    const row = await this.#authorizedRow(id, principal, "read");
    const pins = await this.deps.repos.mcpToolPins.list(row.id);
    // An acceptedHash never given is "", which no schema hash equals.
    return pins.map((pin) => ({ ...pin, status: pin.schemaHash === pin.acceptedHash ? "accepted" : "held" }));
  }

  /** An operator accepts the changed schema they reviewed (by its hash); the tool stops asking at once. */
  async acceptTool(id: string, body: { toolName: string; schemaHash: string }, principal: Principal): Promise<McpToolPinView> {
    const row = await this.#authorizedRow(id, principal, "accept");
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

  /** The secret values of the servers seen so far (redactSecrets masks them in log lines). */
  knownSecrets(): string[] {
    return [...this.#secrets.values()].flat();
  }

  /** The row if the principal may `action` it (docs/api.md, Roles); 404 when they may not even read it. */
  async #authorizedRow(id: string, principal: Principal, action: "read" | "delete" | "accept"): Promise<StoredMcpServer> {
    const row = await this.deps.repos.mcpServers.get(id);
    if (!row) throw new AppError({ code: "not_found", message: `MCP server not found: ${id}` });
    authorize(principal, resourceOf(row.scope), action, { id: row.id, ownerId: row.ownerId });
    return row;
  }

  #entryOf(row: StoredMcpServer): McpServerEntry | undefined {
    if (!row.valid) {
      this.deps.onInvalid?.(row.id, row.problem);
      return undefined;
    }
    const entry = { ...row.config, id: row.id, ownerUserId: row.ownerId };
    this.#secrets.set(row.id, [...secretValues(entry.headers), ...(entry.url ? urlSecrets(entry.url) : [])]);
    return entry;
  }
}

function view(entry: McpServerEntry, row: StoredMcpServer): McpServerView {
  const shown = redactMcpServer({ ...entry, ownerUserId: row.ownerId ?? "", createdAt: row.createdAt });
  return shown.url === undefined ? shown : { ...shown, url: redactUrl(shown.url) };
}
