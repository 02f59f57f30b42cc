import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolProgressListener } from "@berth/protocol";
import { backoffDelay } from "./backoff-delay";
import type { BackoffOptions } from "./backoff-delay";

/** The upstream server cannot be used right now (down, refusing, or waiting out its backoff). */
export class UpstreamUnavailableError extends Error {
  override readonly name = "UpstreamUnavailableError";
  readonly code = "mcp_unavailable";
}

export interface UpstreamConnectionOptions<T> {
  /** The server's name, for messages. */
  label: string;
  createTransport(): Promise<Transport>;
  clientInfo: { name: string; version: string };
  /** Timeout of tools/list (tools/call passes its own). */
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  backoff: BackoffOptions;
  /** Turns a fresh listing into what the gateway keeps (hashes, pins); runs on connect and on list_changed. */
  onTools(tools: Tool[]): Promise<T[]>;
  /** The kept listing was replaced (on connect and on list_changed): what was projected from the last one is stale. */
  onListed?(): void;
  onToolsChanged?(): void;
  onError?(error: unknown): void;
  now?(): number;
}

type State = "idle" | "connecting" | "ready" | "closed";

// A server that keeps paginating is broken or hostile; stop rather than loop.
const MAX_LIST_PAGES = 100;

/**
 * One MCP client to one upstream server: connects on demand, lists tools (all pages) and re-lists on
 * `notifications/tools/list_changed`, and reconnects with exponential backoff after a drop or a
 * transport failure. While a backoff runs, uses fail fast instead of piling up on a dead server.
 */
export class UpstreamConnection<T> {
  #state: State = "idle";
  #client: Client | undefined;
  #connecting: Promise<void> | undefined;
  #tools: T[] = [];
  #attempts = 0;
  #nextAttemptAt = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #lastError: string | undefined;
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;

  constructor(private readonly opts: UpstreamConnectionOptions<T>) {}

  get state(): State {
    return this.#state;
  }

  /** The last listing; empty until the first connect. Kept across a drop so names stay stable. */
  get tools(): readonly T[] {
    return this.#tools;
  }

  /**
   * Settles once a re-listing announced by list_changed is in (at once when none is in flight): a call admitted after
   * the announcement is judged against the new listing, not the one the upstream just replaced.
   */
  settled(): Promise<void> {
    return this.#refreshing ?? Promise.resolve();
  }

  get lastError(): string | undefined {
    return this.#lastError;
  }

  async ensureConnected(): Promise<void> {
    if (this.#state === "closed") throw new UpstreamUnavailableError(`MCP server ${this.opts.label} was removed`);
    if (this.#state === "ready") return;
    if (this.#connecting) return this.#connecting;
    const wait = this.#nextAttemptAt - this.#now();
    if (wait > 0) {
      throw new UpstreamUnavailableError(
        `MCP server ${this.opts.label} is unavailable (${this.#lastError ?? "not connected"}); next attempt in ${wait} ms`,
      );
    }
    return this.#startConnect();
  }

  /**
   * One tools/call. Aborting `signal` cancels it upstream (the SDK sends notifications/cancelled). A
   * progress handler is always given, so the server gets a progressToken and each of its progress
   * notifications restarts `timeoutMs`; `maxTotalMs` bounds the whole call however much progress comes.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    opts: { timeoutMs: number; maxTotalMs?: number; signal?: AbortSignal; onProgress?: ToolProgressListener },
  ): Promise<CallToolResult> {
    await this.ensureConnected();
    const client = this.#client;
    if (!client) throw new UpstreamUnavailableError(`MCP server ${this.opts.label} is not connected`);
    const onProgress = opts.onProgress;
    try {
      return (await client.callTool({ name, arguments: args }, undefined, {
        timeout: opts.timeoutMs,
        resetTimeoutOnProgress: true,
        ...(opts.maxTotalMs !== undefined ? { maxTotalTimeout: opts.maxTotalMs } : {}),
        onprogress: (p) => onProgress?.({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: p.message } : {}) }),
        ...(opts.signal ? { signal: opts.signal } : {}),
      })) as CallToolResult;
    } catch (error) {
      // A JSON-RPC error is the server answering; anything else (fetch failed, HTTP 404 after the server
      // restarted and forgot our MCP session) means the connection is broken: drop it and reconnect.
      if (!(error instanceof McpError)) this.#drop(client, error);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.#state = "closed";
    clearTimeout(this.#retryTimer);
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }

  #now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  #startConnect(): Promise<void> {
    clearTimeout(this.#retryTimer);
    this.#state = "connecting";
    const attempt = this.#connect().finally(() => {
      if (this.#connecting === attempt) this.#connecting = undefined;
    });
    this.#connecting = attempt;
    return attempt;
  }

  async #connect(): Promise<void> {
    let client: Client | undefined;
    try {
      const transport = await this.opts.createTransport();
      client = new Client(this.opts.clientInfo, { capabilities: {} });
      const self = client;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#refresh(self));
      client.onclose = () => this.#drop(self, new Error("connection closed"));
      client.onerror = (error) => this.opts.onError?.(error);
      await client.connect(transport, { timeout: this.opts.connectTimeoutMs });
      this.#client = client;
      this.#setTools(await this.#listAll(client));
      if (this.#state === "closed") throw new Error("removed while connecting");
      this.#state = "ready";
      this.#attempts = 0;
      this.#nextAttemptAt = 0;
      this.#lastError = undefined;
    } catch (error) {
      if (this.#client === client) this.#client = undefined;
      await client?.close().catch(() => undefined);
      this.#failed(error);
      throw new UpstreamUnavailableError(`MCP server ${this.opts.label} could not be reached: ${messageOf(error)}`);
    }
  }

  async #listAll(client: Client): Promise<T[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await client.listTools(cursor ? { cursor } : {}, { timeout: this.opts.requestTimeoutMs });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return this.opts.onTools(tools);
  }

  #setTools(tools: T[]): void {
    this.#tools = tools;
    this.opts.onListed?.();
  }

  /** list_changed: re-list, coalescing bursts into at most one listing in flight plus one after it. */
  #refresh(client: Client): void {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return;
    }
    this.#refreshing = (async () => {
      do {
        this.#refreshAgain = false;
        if (this.#client !== client) return;
        this.#setTools(await this.#listAll(client));
        this.opts.onToolsChanged?.();
      } while (this.#refreshAgain);
    })()
      .catch((error: unknown) => this.opts.onError?.(error))
      .finally(() => {
        this.#refreshing = undefined;
      });
  }

  #drop(client: Client, error: unknown): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    void client.close().catch(() => undefined);
    if (this.#state === "closed") return;
    // A drop after a good connection starts the backoff over; a failed reconnect continues it.
    this.#attempts = 0;
    this.#failed(error);
  }

  #failed(error: unknown): void {
    if (this.#state === "closed") return;
    this.#state = "idle";
    this.#attempts += 1;
    this.#lastError = messageOf(error);
    const delay = backoffDelay(this.#attempts, this.opts.backoff);
    this.#nextAttemptAt = this.#now() + delay;
    clearTimeout(this.#retryTimer);
    if (this.#attempts > this.opts.backoff.maxBackgroundAttempts) return;
    this.#retryTimer = setTimeout(() => {
      if (this.#state !== "idle" || this.#connecting) return;
      this.#startConnect().catch(() => undefined);
    }, delay);
    this.#retryTimer.unref();
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
