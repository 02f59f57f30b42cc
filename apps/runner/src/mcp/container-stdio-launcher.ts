import { randomUUID } from "node:crypto";
import type { StdioLaunchRequest, StdioLauncher } from "@berth/mcp";
import type { SandboxDriver, SessionOutputEvent, SessionProcessStatusEvent } from "@berth/sandbox";
import type { SandboxInfo, SandboxTermination, ToolResult } from "@berth/protocol";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** A server that never ends a line is broken or hostile; stop buffering rather than grow without bound. */
const MAX_LINE_BYTES = 32 * 1024 * 1024;
/** Output that arrives before the start call returns its processId (kept until we know whose it is). */
const MAX_EARLY_EVENTS = 1000;
const STDERR_TAIL_BYTES = 2048;

/** Quotes one word for bash: inside single quotes nothing is special except the quote itself. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `exec 'cmd' 'arg'…`: exec so the server is the process the agent signals, not a bash around it. */
export function stdioCommandLine(command: string, args: readonly string[] = []): string {
  return `exec ${[command, ...args].map(shellQuote).join(" ")}`;
}

export interface ContainerStdioLauncherOptions {
  driver: SandboxDriver;
  /** The session's declared env (the same environment its other processes get). */
  sessionEnv?: (sessionId: string) => Promise<Record<string, string>>;
}

/**
 * Starts stdio MCP servers INSIDE the session's container through the in-container agent: `bash start`
 * with stdin open, JSON-RPC lines in with `bash write`, lines out from the driver's `output` events.
 * The process is started on the driver directly, not through ToolService, so it is not a run and leaves
 * no receipt; the MCP calls made over it are recorded as tool calls by ToolService instead.
 */
export class ContainerStdioLauncher implements StdioLauncher {
  constructor(private readonly opts: ContainerStdioLauncherOptions) {}

  async launch(request: StdioLaunchRequest): Promise<Transport> {
    return new ContainerStdioTransport({
      driver: this.opts.driver,
      sessionId: request.sessionId,
      commandLine: stdioCommandLine(request.server.command, request.server.args ?? []),
      label: request.server.name,
      env: async () => (await this.opts.sessionEnv?.(request.sessionId)) ?? {},
    });
  }
}

interface TransportOptions {
  driver: SandboxDriver;
  sessionId: string;
  commandLine: string;
  label: string;
  env: () => Promise<Record<string, string>>;
}

/** An MCP Transport over one background process in a session container (newline-delimited JSON-RPC). */
export class ContainerStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #processId: string | undefined;
  #state: "new" | "starting" | "open" | "closed" = "new";
  #early: SessionOutputEvent[] = [];
  #stdout: Buffer[] = [];
  #stdoutBytes = 0;
  #stdoutOffset = 0;
  #stderrTail = "";
  #sending: Promise<void> = Promise.resolve();
  #env: Record<string, string> = {};

  constructor(private readonly opts: TransportOptions) {}

  async start(): Promise<void> {
    if (this.#state !== "new") throw new Error(`MCP server ${this.opts.label}: transport already started`);
    this.#state = "starting";
    const { driver, sessionId } = this.opts;
    // Listen before starting: output may in principle arrive before the start call returns the processId.
    driver.on("output", this.#onOutput);
    driver.on("process.status", this.#onStatus);
    driver.on("terminated", this.#onTerminated);
    driver.on("ready", this.#onReady);
    try {
      this.#env = await this.opts.env();
      const result = await this.#call({ action: "start", command: this.opts.commandLine });
      const processId = result.ok ? result.details?.processId : undefined;
      if (typeof processId !== "string") {
        throw new Error(`could not start ${JSON.stringify(this.opts.commandLine)} in session ${sessionId}: ${result.error?.message ?? "no processId"}`);
      }
      if ((this.#state as string) === "closed") {
        await this.#stopProcess(processId);
        throw new Error(`MCP server ${this.opts.label}: closed while starting`);
      }
      this.#processId = processId;
      this.#state = "open";
      const early = this.#early;
      this.#early = [];
      for (const event of early) this.#onOutput(event);
    } catch (error) {
      this.#detach();
      this.#state = "closed";
      throw error;
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // One write at a time, so the server reads messages in the order they were sent.
    const sent = this.#sending.then(async () => {
      const processId = this.#processId;
      if (this.#state !== "open" || !processId) throw new Error(`MCP server ${this.opts.label} is not running`);
      const result = await this.#call({ action: "write", processId, input: `${JSON.stringify(message)}\n` });
      if (!result.ok) throw new Error(`MCP server ${this.opts.label}: write failed: ${result.error?.message ?? "unknown error"}`);
    });
    this.#sending = sent.catch(() => undefined);
    return sent;
  }

  async close(): Promise<void> {
    const processId = this.#processId;
    if (!this.#finish()) return;
    if (processId) await this.#stopProcess(processId);
  }

  #call(args: Record<string, unknown>): Promise<ToolResult> {
    return this.opts.driver.call(this.opts.sessionId, { tool: "bash", args, callId: `mcp_${randomUUID()}`, env: this.#env });
  }

  async #stopProcess(processId: string): Promise<void> {
    // The container may already be gone with the session; then so is the process.
    await this.#call({ action: "stop", processId }).catch(() => undefined);
  }

  /** Detaches and reports the close once; false when already closed. */
  #finish(): boolean {
    if (this.#state === "closed") return false;
    this.#state = "closed";
    this.#detach();
    this.onclose?.();
    return true;
  }

  #detach(): void {
    const { driver } = this.opts;
    driver.off("output", this.#onOutput);
    driver.off("process.status", this.#onStatus);
    driver.off("terminated", this.#onTerminated);
    driver.off("ready", this.#onReady);
  }

  readonly #onOutput = (event: SessionOutputEvent): void => {
    if (event.sessionId !== this.opts.sessionId || event.processId === undefined) return;
    if (this.#state === "starting") {
      if (this.#early.length < MAX_EARLY_EVENTS) this.#early.push(event);
      return;
    }
    if (this.#state !== "open" || event.processId !== this.#processId) return;
    const chunk = event.data;
    if (event.stream === "stderr") {
      this.#stderrTail = (this.#stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
      return;
    }
    if (event.stream !== "stdout" || event.offset < this.#stdoutOffset) return;
    this.#stdoutOffset = event.offset + chunk.length;
    this.#readLines(chunk);
  };

  readonly #onStatus = (event: SessionProcessStatusEvent): void => {
    if (event.sessionId !== this.opts.sessionId || event.processId !== this.#processId || event.status === "RUNNING") return;
    if (this.#state === "open" && event.exitCode !== 0) {
      const stderr = this.#stderrTail.trim();
      this.onerror?.(new Error(`MCP server ${this.opts.label} exited with code ${event.exitCode}${stderr ? `: ${stderr.slice(-500)}` : ""}`));
    }
    this.#finish();
  };

  readonly #onTerminated = (termination: SandboxTermination): void => {
    if (termination.sessionId === this.opts.sessionId) this.#finish();
  };

  /** A later `ready` for the session means a new container (restart): our process went with the old one. */
  readonly #onReady = (info: SandboxInfo): void => {
    if (info.sessionId === this.opts.sessionId && this.#state === "open") this.#finish();
  };

  #readLines(chunk: Buffer): void {
    let from = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, from)) {
      this.#stdout.push(chunk.subarray(from, newline));
      const line = Buffer.concat(this.#stdout).toString("utf8");
      this.#stdout = [];
      this.#stdoutBytes = 0;
      from = newline + 1;
      this.#deliver(line);
    }
    if (from < chunk.length) {
      this.#stdout.push(chunk.subarray(from));
      this.#stdoutBytes += chunk.length - from;
      if (this.#stdoutBytes > MAX_LINE_BYTES) {
        this.#stdout = [];
        this.#stdoutBytes = 0;
        this.onerror?.(new Error(`MCP server ${this.opts.label} wrote a line over ${MAX_LINE_BYTES} bytes; dropped`));
      }
    }
  }

  #deliver(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.onerror?.(new Error(`MCP server ${this.opts.label} wrote a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.onerror?.(new Error(`MCP server ${this.opts.label} wrote JSON that is not a JSON-RPC message: ${line.slice(0, 200)}`));
      return;
    }
    this.onmessage?.(parsed.data);
  }
}
