import { McpServerConfigSchema, toolFailure } from "@berth/protocol";
import type { McpToolPin, ToolProgressListener, ToolResult } from "@berth/protocol";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { addressRefusal, guardedFetch, type PrivateAddressError } from "./address-guard";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { parseUserToolName } from "../names";
import { canonicalJson } from "../pinning";
import type { SchemaPinStore } from "../pinning";
import { DEFAULT_BACKOFF } from "./backoff-delay";
import type { BackoffOptions } from "./backoff-delay";
import { fromCallToolResult } from "./from-call-tool-result";
import type { McpCallOrigin } from "./from-call-tool-result";
import type { McpResolution, McpScope, McpServerEntry, ProjectedMcpTool, UnavailableMcpServer } from "./gateway-types";
import { callFailure, heldToolFailure, normaliseMcpArgs } from "./mcp-call-failure";
import { type UpstreamTool, isPerSession, projectMcpTools } from "./mcp-tool-projection";
import type { StdioLauncher } from "./stdio-launcher";
import { ToolPinCache } from "./tool-pin-cache";
import { UpstreamConnection, messageOf } from "./upstream-connection";

/** docs/tools.md: every MCP call has a timeout, default 60 s, restarted by each progress notification. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 60_000;
/** However much progress arrives, a call ends after this long (default 10 min). */
export const DEFAULT_MCP_CALL_MAX_TOTAL_MS = 600_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 20_000;

export interface McpClientGatewayOptions {
  pins: SchemaPinStore;
  /** Starts stdio servers inside the session's container. Without one, stdio servers are unavailable. */
  stdio?: StdioLauncher;
  /** Builds the transport for an http server; the default is the SDK's Streamable HTTP client with the server's headers. */
  httpTransport?: (server: McpServerEntry & { url: string }) => Transport;
  /**
   * Whether a `scope: "user"` http server may be on a loopback, private or link-local address (default
   * false: the runner would otherwise call into its own network on a user's behalf; address-guard.ts).
   * Global servers are registered by operators and may be anywhere.
   */
  allowPrivateUserServers?: boolean;
  /** Timeout of each tools/call (default 60 s); a call may pass its own. Each upstream progress notification restarts it. */
  callTimeoutMs?: number;
  /** The longest a tools/call may take while progress keeps restarting its timeout (default 10 min). */
  callMaxTotalMs?: number;
  /** Timeout of each tools/list page (default 60 s). */
  listTimeoutMs?: number;
  connectTimeoutMs?: number;
  backoff?: Partial<BackoffOptions>;
  /** Names an MCP tool must not take (built-in and local function tools): a clash gets a suffix instead. */
  reservedNames?: (scope: McpScope) => Iterable<string>;
  clientInfo?: { name: string; version: string };
  /** A server's tool list changed (list_changed, reconnect): push a catalogue refresh to clients. */
  onToolsChanged?: (event: { serverId: string; sessionId?: string }) => void;
  /** Background failures (a dropped connection, a failed re-list), for the runner's log. Never contains header values. */
  onError?: (error: unknown, context: { serverId: string; serverName: string }) => void;
}

export interface McpCallOptions {
  /** Set by the runner once admission asked and the operator approved this call of a held tool. */
  allowHeld?: boolean;
  timeoutMs?: number;
  /** Aborting cancels the call upstream too (notifications/cancelled). */
  signal?: AbortSignal;
  /** The upstream server's progress, forwarded with the caller's own token by whoever gave this. */
  onProgress?: ToolProgressListener;
}

interface ConnectionSlot {
  serverId: string;
  sessionId: string | undefined;
  fingerprint: string;
  connection: UpstreamConnection<UpstreamTool>;
}

/**
 * The MCP client side: connections to upstream servers (http ones contacted by the runner, stdio ones
 * started inside each session's container), their tools projected under the spec's name rules, and
 * calls with timeouts and `isError` → ok:false. Every projected tool carries its schema pin status.
 *
 * Listing is split so the router can stay synchronous: `prepare(scope)` connects and lists (async);
 * `listCachedTools` / `resolve` answer from what is already known. Projection and names are in
 * mcp-tool-projection.ts, schema pins in tool-pin-cache.ts, call failures in mcp-call-failure.ts, each
 * connection's lifecycle in upstream-connection.ts; this class keeps the servers and their connections.
 */
export class McpClientGateway {
  readonly #opts: McpClientGatewayOptions;
  readonly #backoff: BackoffOptions;
  readonly #servers = new Map<string, McpServerEntry>();
  readonly #slots = new Map<string, ConnectionSlot>();
  readonly #pins: ToolPinCache;
  #generation = 0;
  readonly #memo = new Map<string, { generation: number; tools: ProjectedMcpTool[] }>();

  constructor(opts: McpClientGatewayOptions) {
    this.#opts = opts;
    this.#backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.#pins = new ToolPinCache(opts.pins, () => this.#generation++);
  }

  /** Replaces the registered servers (e.g. loaded from the database); connections of removed or changed servers close. */
  async setServers(entries: readonly McpServerEntry[]): Promise<void> {
    const next = new Map(entries.map((e) => [e.id, checkEntry(e)]));
    for (const id of this.#servers.keys()) if (!next.has(id)) await this.removeServer(id);
    for (const entry of next.values()) this.upsertServer(entry);
  }

  upsertServer(entry: McpServerEntry): void {
    this.#servers.set(entry.id, checkEntry(entry));
    this.#generation++;
  }

  async removeServer(serverId: string): Promise<void> {
    this.#servers.delete(serverId);
    this.#generation++;
    await this.#closeSlots((slot) => slot.serverId === serverId);
  }

  servers(): McpServerEntry[] {
    return [...this.#servers.values()];
  }

  /** A session ended or its container was recycled: its stdio servers went with it. */
  async closeSession(sessionId: string): Promise<void> {
    await this.#closeSlots((slot) => slot.sessionId === sessionId);
  }

  async close(): Promise<void> {
    await this.#closeSlots(() => true);
  }

  /**
   * Connects every server the scope may see (in parallel, each bounded by the connect timeout) and
   * refreshes pin acceptances other runners may have made. Servers that fail are reported, not fatal.
   */
  async prepare(scope: McpScope): Promise<{ tools: ProjectedMcpTool[]; unavailable: UnavailableMcpServer[] }> {
    const entries = this.#visible(scope);
    const unavailable: UnavailableMcpServer[] = [];
    await Promise.all(
      entries.map(async (entry) => {
        try {
          const { connection } = this.#slotFor(entry, scope);
          await connection.ensureConnected();
          await connection.settled();
        } catch (error) {
          unavailable.push({ serverId: entry.id, serverName: entry.name, message: messageOf(error) });
        }
      }),
    );
    await this.#pins.reload(new Set(entries.map((e) => e.id)));
    return { tools: this.listCachedTools(scope), unavailable };
  }

  async listTools(scope: McpScope): Promise<ProjectedMcpTool[]> {
    return (await this.prepare(scope)).tools;
  }

  /** The scope's tools from known listings, in precedence order (user → session → global); no I/O. */
  listCachedTools(scope: McpScope): ProjectedMcpTool[] {
    const key = canonicalJson([
      scope.userId,
      scope.sessionId,
      scope.mcpServers ?? null,
      [...(this.#opts.reservedNames?.(scope) ?? [])],
    ]);
    const memo = this.#memo.get(key);
    if (memo && memo.generation === this.#generation) return memo.tools;
    const tools = this.#project(scope);
    if (this.#memo.size > 500) this.#memo.clear();
    this.#memo.set(key, { generation: this.#generation, tools });
    return tools;
  }

  /**
   * The MCP part of the router's name resolution. A `user_{id}_tool_…` name is only ever looked up for
   * that user: from anyone else it is refused outright (user `1` never matches `1_2`, nor the reverse).
   */
  resolve(name: string, scope: McpScope): McpResolution {
    const parsed = parseUserToolName(name);
    if (parsed && parsed.userId !== scope.userId) {
      return {
        kind: "forbidden",
        message: `tool ${JSON.stringify(name)} is another user's MCP tool; a user sees only their own user_${scope.userId}_tool_* tools`,
      };
    }
    const tool = this.listCachedTools(scope).find((t) => t.name === name);
    if (!tool || (parsed !== null) !== (tool.origin === "user")) return { kind: "none" };
    return { kind: "tool", tool };
  }

  /** Calls a projected tool. Every failure is a ToolResult (ok:false with a code), never a throw. */
  async callTool(name: string, args: unknown, scope: McpScope, opts: McpCallOptions = {}): Promise<ToolResult> {
    let resolution = this.resolve(name, scope);
    if (resolution.kind === "none") {
      await this.prepare(scope);
      resolution = this.resolve(name, scope);
    }
    if (resolution.kind === "forbidden") return toolFailure("mcp_tool_forbidden", resolution.message);
    if (resolution.kind === "none")
      return toolFailure("unknown_tool", `no MCP tool named ${JSON.stringify(name)} is visible to this session`);
    const tool = resolution.tool;
    const origin: McpCallOrigin = { serverId: tool.serverId, serverName: tool.serverName, tool: tool.upstreamName };
    const trace = { mcpServer: tool.serverName, serverId: tool.serverId, tool: tool.upstreamName };

    if (tool.status === "held" && !opts.allowHeld) return { ...heldToolFailure(tool), trace };
    const parsedArgs = normaliseMcpArgs(args);
    if (typeof parsedArgs === "string") return { ...toolFailure("invalid_arguments", parsedArgs), trace };

    const entry = this.#servers.get(tool.serverId);
    if (!entry) return { ...toolFailure("mcp_unavailable", `MCP server ${tool.serverName} was removed`), trace };
    const timeoutMs = opts.timeoutMs ?? this.#opts.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
    try {
      const result = await this.#slotFor(entry, scope).connection.callTool(tool.upstreamName, parsedArgs, {
        timeoutMs,
        maxTotalMs: Math.max(timeoutMs, this.#opts.callMaxTotalMs ?? DEFAULT_MCP_CALL_MAX_TOTAL_MS),
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      });
      return fromCallToolResult(result, origin);
    } catch (error) {
      return { ...callFailure(error, tool, timeoutMs, opts.signal), trace };
    }
  }

  /** An operator accepts the reviewed version of a changed tool; calls stop asking at once. */
  acceptToolSchema(serverId: string, toolName: string, schemaHash: string): Promise<McpToolPin> {
    return this.#pins.accept(serverId, toolName, schemaHash);
  }

  #visible(scope: McpScope): McpServerEntry[] {
    const allow = scope.mcpServers ? new Set(scope.mcpServers) : undefined;
    return [...this.#servers.values()].filter((e) => {
      if (e.sessionId !== undefined && e.sessionId !== scope.sessionId) return false;
      if (e.scope === "user" && e.ownerUserId !== scope.userId) return false;
      return !allow || allow.has(e.name) || allow.has(e.id);
    });
  }

  #slotFor(entry: McpServerEntry, scope: McpScope): ConnectionSlot {
    const perSession = isPerSession(entry);
    const key = slotKey(entry, scope);
    const fingerprint = canonicalJson(entry);
    const existing = this.#slots.get(key);
    if (existing && existing.fingerprint === fingerprint) return existing;
    if (existing) void existing.connection.close();

    const context = { serverId: entry.id, serverName: entry.name };
    const sessionId = perSession ? scope.sessionId : undefined;
    const connection = new UpstreamConnection<UpstreamTool>({
      label: entry.name,
      createTransport: () => this.#createTransport(entry, scope),
      clientInfo: this.#opts.clientInfo ?? { name: "berth-gateway", version: "0.1.0" },
      requestTimeoutMs: this.#opts.listTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
      connectTimeoutMs: this.#opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      backoff: this.#backoff,
      onTools: (tools) => this.#pins.observe(entry.id, tools),
      // The pins' change bumped the generation before the listing was kept: a projection made in between is stale.
      onListed: () => this.#generation++,
      onToolsChanged: () => this.#opts.onToolsChanged?.({ serverId: entry.id, ...(sessionId ? { sessionId } : {}) }),
      onError: (error) => this.#opts.onError?.(error, context),
    });
    const slot: ConnectionSlot = { serverId: entry.id, sessionId, fingerprint, connection };
    this.#slots.set(key, slot);
    this.#generation++;
    return slot;
  }

  /** A user's http server is kept off private addresses (address-guard.ts) unless the runner allows them. */
  #limitsAddresses(server: Pick<McpServerEntry, "transport" | "scope">): boolean {
    return server.transport === "http" && server.scope === "user" && !this.#opts.allowPrivateUserServers;
  }

  /**
   * Why this server would not be reached, said at registration (the connection checks again, after DNS):
   * a user's http server whose host is or resolves to a private address. Null when it may be registered.
   */
  async addressRefusal(
    server: Pick<McpServerEntry, "transport" | "scope" | "url">,
  ): Promise<PrivateAddressError | null> {
    return this.#limitsAddresses(server) && server.url ? addressRefusal(server.url) : null;
  }

  async #createTransport(entry: McpServerEntry, scope: McpScope): Promise<Transport> {
    if (entry.transport === "http") {
      const server = { ...entry, url: entry.url ?? "" };
      if (this.#opts.httpTransport) return this.#opts.httpTransport(server);
      return new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: entry.headers ?? {} },
        ...(this.#limitsAddresses(entry) ? { fetch: guardedFetch() } : {}),
      });
    }
    if (!this.#opts.stdio)
      throw new Error("stdio servers run inside a session container and no launcher is configured");
    return this.#opts.stdio.launch({
      server: { ...entry, transport: "stdio", command: entry.command ?? "" },
      sessionId: scope.sessionId,
      userId: scope.userId,
    });
  }

  #project(scope: McpScope): ProjectedMcpTool[] {
    return projectMcpTools({
      visible: this.#visible(scope),
      toolsOf: (entry) => this.#slots.get(slotKey(entry, scope))?.connection.tools,
      acceptedHashOf: (serverId, toolName) => this.#pins.acceptedHash(serverId, toolName),
      reserved: this.#opts.reservedNames?.(scope) ?? [],
    });
  }

  async #closeSlots(match: (slot: ConnectionSlot) => boolean): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const [key, slot] of this.#slots) {
      if (!match(slot)) continue;
      this.#slots.delete(key);
      closing.push(slot.connection.close());
    }
    if (closing.length > 0) this.#generation++;
    await Promise.all(closing);
  }
}

/** One connection per server, or per server and session for stdio and session servers. */
function slotKey(entry: McpServerEntry, scope: McpScope): string {
  return isPerSession(entry) ? `${entry.id}\u0000${scope.sessionId}` : entry.id;
}

function checkEntry(entry: McpServerEntry): McpServerEntry {
  const parsed = McpServerConfigSchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `MCP server ${JSON.stringify(entry.name)}: ${issue?.path.join(".") || "config"} ${issue?.message ?? "is invalid"}`,
    );
  }
  if (entry.scope === "user" && !entry.ownerUserId)
    throw new Error(`MCP server ${JSON.stringify(entry.name)}: ownerUserId is required when scope is user`);
  return entry;
}
