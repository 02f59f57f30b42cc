import { EventEmitter } from "node:events";
import {
  AGENT_PROTOCOL_VERSION,
  AgentHelloResultSchema,
  AgentMethod,
  AgentNotification,
  AgentPingResultSchema,
  JsonRpcResponseSchema,
  OutputChunkHeaderSchema,
  ProcessStatusNotificationSchema,
  ToolAbortResultSchema,
  ToolCallResultSchema,
  type AgentHelloResult,
  type JsonRpcResponse,
  type AgentPingResult,
  type OutputChunkHeader,
  type ProcessStatusNotification,
  type ToolCallParams,
  type ToolResult,
} from "@berth/protocol";
import { SandboxError } from "../errors";
import { AgentStreamReader } from "./agent-stream-reader";
import { LateAbortWatch } from "./late-abort-watch";
import { DEFAULT_LOG_BUDGET, LogBudget, type LogBudgetOptions } from "./log-budget";

/** The two byte streams of an agent: what we write to its stdin, what we read from its stdout. */
export interface AgentStreams {
  stdin: NodeJS.WritableStream;
  stdout: NodeJS.ReadableStream;
}

export interface AgentConnectionOptions extends AgentStreams {
  sessionId: string;
  /** Used when a call passes no timeout of its own. */
  defaultTimeoutMs: number;
  /** A reply line longer than this is a protocol fault (a read_file of 20 MiB base64 is ~27 MiB). */
  maxLineBytes?: number;
  /** How many `protocol-error` events the container can cause (each one is a runner log line). */
  faultBudget?: LogBudgetOptions;
}

export interface AgentCallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A chunk of live output, its header schema-checked; `data` is the frame's bytes as they came. */
export type AgentOutput = OutputChunkHeader & { data: Buffer };

export type AgentConnectionEvents = {
  output: [AgentOutput];
  "process.status": [ProcessStatusNotification];
  /** stdout ended: the agent or its container is gone. Pending calls wait for `fail()` (see below). */
  end: [];
  /**
   * A line that is not valid protocol; the connection keeps going. Bounded (LogBudget): escaped, cut, at most so
   * many per interval, then one "suppressed K lines" event.
   */
  "protocol-error": [message: string];
};

/** The part of a zod schema the connection needs; keeps zod out of this package's dependencies. */
export interface ResultSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { message: string } };
}

interface PendingCall {
  method: string;
  schema: ResultSchema<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * A reply as almost every reply is (`jsonrpc` "2.0", an integer id, a result, no error) as JsonRpcResponseSchema would
 * read it, without running it: the result is checked once, by the call's own schema. Anything else: undefined, and
 * the schema decides.
 */
function successEnvelope(message: object): { success: true; data: JsonRpcResponse } | undefined {
  const { jsonrpc, id, result } = message as { jsonrpc?: unknown; id?: unknown; result?: unknown };
  if (jsonrpc !== "2.0" || !Number.isInteger(id) || "error" in message) return undefined;
  return { success: true, data: { jsonrpc, id: id as number, result } };
}

const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
/** If nobody explains the end of the stream within this time, pending calls fail with a plain cause. */
const END_GRACE_MS = 750;
/** A call's abort signal is listened to once the call has lasted this long; an earlier abort is acted on then. */
const ABORT_WATCH_AFTER_MS = 10;

/**
 * JSON-RPC 2.0 client for berth-agent over newline-delimited JSON, with live output as binary frames between
 * the lines (AgentStreamReader). Every reply and frame header is validated with the protocol schemas (the
 * container is untrusted); notifications and output become typed events.
 *
 * When stdout ends, the owner (the driver) finds out why (exit code, OOM) and calls `fail()` with that
 * error, so every pending call rejects with an honest cause; a short grace timer guarantees that they
 * reject even if nobody does.
 */
export class AgentConnection extends EventEmitter<AgentConnectionEvents> {
  readonly sessionId: string;
  private readonly stdin: NodeJS.WritableStream;
  private readonly stdout: NodeJS.ReadableStream;
  private readonly defaultTimeoutMs: number;
  private readonly maxLineBytes: number;
  private readonly pending = new Map<number, PendingCall>();
  private nextId = 1;
  private readonly reader: AgentStreamReader;
  /** When the agent last sent anything: a busy stream proves it is alive even if a ping waits behind output. */
  lastDataAt = Date.now();
  private failure: Error | null = null;
  private ended = false;
  private endTimer: NodeJS.Timeout | null = null;
  private readonly faults: LogBudget;
  /** Request lines waiting for this turn of the event loop's one write (see send). */
  private outbox: string[] = [];
  /** Callers' abort signals, listened to only for calls that last (LateAbortWatch). */
  private readonly aborts = new LateAbortWatch(ABORT_WATCH_AFTER_MS);

  constructor(opts: AgentConnectionOptions) {
    super();
    this.sessionId = opts.sessionId;
    this.stdin = opts.stdin;
    this.stdout = opts.stdout;
    this.defaultTimeoutMs = opts.defaultTimeoutMs;
    this.maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.reader = new AgentStreamReader(
      {
        line: (bytes) => this.onLine(bytes.toString("utf8")),
        frame: (header, data) => this.onFrame(header, data),
        fatal: (message) => this.failProtocol(message),
      },
      this.maxLineBytes,
    );
    this.faults = new LogBudget(
      (message) => this.emit("protocol-error", message),
      opts.faultBudget ?? DEFAULT_LOG_BUDGET,
    );
    this.stdout.on("data", this.onData);
    this.stdout.once("end", this.onEnd);
    this.stdout.once("close", this.onEnd);
    this.stdout.on("error", this.onEnd);
    // A write to a closed pipe must not crash the runner; the end of stdout reports the death.
    this.stdin.on("error", () => undefined);
  }

  /** True once stdout ended or the connection failed: no call can succeed any more. */
  get closed(): boolean {
    return this.ended || this.failure !== null;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Handshake: refuses an agent that speaks another protocol version. */
  async hello(runnerVersion?: string, opts: AgentCallOptions = {}): Promise<AgentHelloResult> {
    const result = await this.request(
      AgentMethod.Hello,
      runnerVersion === undefined ? {} : { runnerVersion },
      AgentHelloResultSchema,
      opts,
    );
    if (result.protocolVersion !== AGENT_PROTOCOL_VERSION) {
      throw new SandboxError({
        sessionId: this.sessionId,
        reason: "protocol",
        message: `Agent in session ${this.sessionId} speaks protocol version ${result.protocolVersion}, the runner speaks ${AGENT_PROTOCOL_VERSION}`,
      });
    }
    return result;
  }

  ping(opts: AgentCallOptions = {}): Promise<AgentPingResult> {
    return this.request(AgentMethod.Ping, {}, AgentPingResultSchema, opts);
  }

  /** Runs one tool; aborting `signal` asks the agent to abort the call, whose result still arrives. */
  callTool(params: ToolCallParams, opts: AgentCallOptions = {}): Promise<ToolResult> {
    const onAbort = opts.signal ? () => void this.abortTool(params.callId).catch(() => undefined) : undefined;
    return this.request(AgentMethod.ToolCall, params, ToolCallResultSchema, opts, onAbort);
  }

  async abortTool(callId: string, opts: AgentCallOptions = {}): Promise<boolean> {
    const result = await this.request(AgentMethod.ToolAbort, { callId }, ToolAbortResultSchema, opts);
    return result.aborted;
  }

  /**
   * One request; resolves with the schema-checked result or rejects with a SandboxError. Aborting `opts.signal` runs
   * `onAbort` (a tool call asks the agent to abort, and its result still arrives) or, without one, stops waiting.
   */
  request<T>(method: string, params: unknown, schema: ResultSchema<T>, opts: AgentCallOptions = {}, onAbort?: () => void): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.ended) return Promise.reject(this.endedError());
    const id = this.nextId++;
    const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settle(id)?.reject(
          new SandboxError({
            sessionId: this.sessionId,
            reason: "timeout",
            message: `Agent call ${method} in session ${this.sessionId} timed out after ${timeoutMs} ms`,
          }),
        );
      }, timeoutMs);
      this.pending.set(id, { method, schema, resolve: resolve as (value: unknown) => void, reject, timer });
      if (opts.signal) this.aborts.watch(id, opts.signal, onAbort ?? (() => this.stopWaiting(id, method)));
      this.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  /**
   * Queues a request line; the lines of one turn of the event loop go out in one write (setImmediate runs after
   * the turn's I/O callbacks), so many callers at once cost the pipe, dockerd and the agent one wake-up, not one
   * each. Order is kept: lines leave in the order they were sent.
   */
  private send(line: string): void {
    this.outbox.push(line);
    if (this.outbox.length === 1) setImmediate(this.flushOutbox);
  }

  private readonly flushOutbox = () => {
    const lines = this.outbox;
    this.outbox = [];
    if (lines.length > 0 && !this.closed) this.stdin.write(`${lines.join("\n")}\n`);
  };

  /**
   * Rejects every pending and future call with `error` at once and stops reading. The driver calls this
   * with the real termination cause; calling it twice keeps the first error.
   */
  fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    if (this.endTimer) clearTimeout(this.endTimer);
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
    this.stdout.off("data", this.onData);
    this.reader.stop();
    this.faults.flush();
  }

  /** A call whose caller aborted stops waiting for its answer. */
  private stopWaiting(id: number, method: string): void {
    this.settle(id)?.reject(
      new SandboxError({
        sessionId: this.sessionId,
        reason: "timeout",
        message: `Agent call ${method} in session ${this.sessionId} was aborted by the caller`,
      }),
    );
  }

  private settle(id: number): PendingCall | undefined {
    const call = this.pending.get(id);
    if (!call) return undefined;
    this.pending.delete(id);
    clearTimeout(call.timer);
    this.aborts.end(id);
    return call;
  }

  private endedError(): SandboxError {
    return new SandboxError({
      sessionId: this.sessionId,
      reason: "not_running",
      terminationCause: "exited",
      message: `Sandbox for session ${this.sessionId} is not running (cause: exited)`,
    });
  }

  /** Every protocol fault goes through the budget: the container decides what these lines say. */
  private fault(message: string): void {
    this.faults.write(message);
  }

  private readonly onEnd = () => {
    if (this.ended) return;
    this.ended = true;
    this.faults.flush();
    this.emit("end");
    if (!this.failure && this.pending.size > 0) {
      this.endTimer = setTimeout(() => this.fail(this.endedError()), END_GRACE_MS);
    }
  };

  private readonly onData = (chunk: Buffer | string) => {
    this.lastDataAt = Date.now();
    this.reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  };

  /** The stream can no longer be read as protocol (its lengths are not to be trusted): the connection fails. */
  private failProtocol(what: string): void {
    this.fail(new SandboxError({ sessionId: this.sessionId, reason: "protocol", message: `Agent in session ${this.sessionId} ${what}` }));
  }

  /** A frame's header is checked like any reply: the container chooses what it says. */
  private onFrame(headerBytes: Buffer, data: Buffer): void {
    let header: unknown;
    try {
      header = JSON.parse(headerBytes.toString("utf8"));
    } catch {
      return this.failProtocol("sent an output frame whose header is not JSON");
    }
    const parsed = OutputChunkHeaderSchema.safeParse(header);
    if (!parsed.success) return this.failProtocol(`sent an invalid output frame header: ${parsed.error.message}`);
    this.emit("output", { ...parsed.data, data });
  }

  private onLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.fault(`not JSON: ${line.slice(0, 200)}`);
      return;
    }
    if (typeof message !== "object" || message === null) {
      this.fault(`not a JSON-RPC message: ${line.slice(0, 200)}`);
      return;
    }
    if ("method" in message && !("id" in message)) {
      this.onNotification(message as { method: unknown; params?: unknown });
      return;
    }
    const response = successEnvelope(message) ?? JsonRpcResponseSchema.safeParse(message);
    if (!response.success) {
      this.fault(`invalid JSON-RPC response: ${response.error.message}`);
      return;
    }
    this.onResponse(response.data);
  }

  private onResponse(response: JsonRpcResponse): void {
    // id null: the agent could not read one of our lines; it names no call, so nothing to settle.
    if (typeof response.id !== "number") {
      if (response.error) this.fault(`agent error without call id: ${response.error.message}`);
      return;
    }
    const call = this.settle(response.id);
    if (!call) return; // timed out already
    if (response.error) {
      call.reject(
        new SandboxError({
          sessionId: this.sessionId,
          reason: "rpc",
          rpcCode: response.error.code,
          message: `Agent ${call.method} failed in session ${this.sessionId}: ${response.error.message}`,
        }),
      );
      return;
    }
    const result = call.schema.safeParse(response.result);
    if (!result.success) {
      call.reject(
        new SandboxError({
          sessionId: this.sessionId,
          reason: "protocol",
          message: `Agent sent an invalid ${call.method} result in session ${this.sessionId}: ${result.error.message}`,
        }),
      );
      return;
    }
    call.resolve(result.data);
  }

  private onNotification(message: { method: unknown; params?: unknown }): void {
    if (message.method === AgentNotification.ProcessStatus) {
      const parsed = ProcessStatusNotificationSchema.safeParse(message.params);
      if (parsed.success) this.emit("process.status", parsed.data);
      else this.fault(`invalid process.status notification: ${parsed.error.message}`);
    } else {
      this.fault(`unknown notification: ${String(message.method)}`);
    }
  }
}
