import { z } from "zod";
import { ApprovalRequestSchema, AutonomySchema, type ApprovalRequest } from "./admission";
import type { ToolCallAnswer } from "./api/sessions";
import { RunCancelRequestSchema, type RunCancelResult } from "./run-cancel";
import {
  TerminalAttachSchema,
  TerminalCloseSchema,
  TerminalExitEventSchema,
  TerminalInfoSchema,
  TerminalInputSchema,
  TerminalListSchema,
  TerminalOpenSchema,
  TerminalOutputEventSchema,
  TerminalRenameSchema,
  TerminalResizeSchema,
  type TerminalExitEvent,
  type TerminalInfo,
  type TerminalOutputEvent,
} from "./terminal";

/**
 * The socket.io contract between the browser and the runner (docs/api.md "socket.io"), for both ends:
 * the runner is a `Server<ClientToServerEvents, ServerToClientEvents>` and safeParses every payload with
 * the schema below; the web is a `Socket<ServerToClientEvents, ClientToServerEvents>`. Every ack is
 * `(err, result)`. Output events carry byte offsets, so a client that resubscribes from the last offset it
 * saw misses nothing and sees nothing twice.
 */

const Id = z.string().min(1);
const Offset = z.number().int().min(0);

// ---- client → server payloads ----

/** `session:join` / `session:leave`: the session's room carries its file, run, process and status events. */
export const SessionRefSchema = z.object({ sessionId: Id });
export type SessionRef = z.infer<typeof SessionRefSchema>;

/** `tool:call`: unlike REST, the call outlives the tab that made it (a reload does not abort a script). */
export const ToolCallEventSchema = z.object({
  sessionId: Id,
  tool: Id,
  args: z.unknown().optional(),
  /** The client's id for this call, echoed in `run:started` so it learns the run id as soon as the run exists. */
  callId: z.string().min(1).max(128, "must be at most 128 characters").optional(),
});
export type ToolCallEvent = z.infer<typeof ToolCallEventSchema>;

/**
 * How a subscriber wants its output events' `data`: `text` (a string of whole UTF-8 characters, the default) or
 * `binary` (the log's bytes as a binary attachment, still cut at whole characters): no JSON string to parse or
 * decode on either end, one buffer shared by every follower of a log, and bytes a client can hash against the log.
 */
export const OutputEncodingSchema = z.enum(["text", "binary"]);
export type OutputEncoding = z.infer<typeof OutputEncodingSchema>;

/** `process:subscribe`: `offset` is a byte offset in the process's combined log. */
export const ProcessSubscribeSchema = z.object({ sessionId: Id, processId: Id, offset: Offset.default(0), encoding: OutputEncodingSchema.default("text") });
export type ProcessSubscribe = z.input<typeof ProcessSubscribeSchema>;

/** `run:subscribe`: one offset for both streams (0 = from the start), or one per stream. */
export const RunSubscribeSchema = z.object({
  runId: Id,
  offset: z.union([Offset, z.object({ stdout: Offset.default(0), stderr: Offset.default(0) })]).default(0),
  encoding: OutputEncodingSchema.default("text"),
});
export type RunSubscribe = z.input<typeof RunSubscribeSchema>;

// ---- acks (the result half of `(err, result)`) ----

export const SocketAckErrorSchema = z.object({ code: z.string(), message: z.string() });
export type SocketAckError = z.infer<typeof SocketAckErrorSchema>;
export type SocketAck<T> = (err: SocketAckError | null, result?: T) => void;

export const SessionJoinResultSchema = z.object({ sessionId: z.string(), status: z.string() });
export type SessionJoinResult = z.infer<typeof SessionJoinResultSchema>;
export const SessionLeaveResultSchema = z.object({ ok: z.literal(true) });
export type SessionLeaveResult = z.infer<typeof SessionLeaveResultSchema>;
/** `runs:subscribe` / `approvals:subscribe`: `own` (a developer, a viewer) gets only their own sessions' events. */
export const SubscribeResultSchema = z.object({ ok: z.literal(true), scope: z.enum(["any", "own"]) });
export type SubscribeResult = z.infer<typeof SubscribeResultSchema>;
export const ProcessSubscribeResultSchema = z.object({ processId: z.string(), runId: z.string(), offset: Offset, status: z.string() });
export type ProcessSubscribeResult = z.infer<typeof ProcessSubscribeResultSchema>;
/** Where each stream's replay ended (the live events continue from there) and the run's state at that moment. */
export const RunSubscribeResultSchema = z.object({
  runId: z.string(),
  offsets: z.object({ stdout: Offset, stderr: Offset }),
  status: z.string(),
  outcome: z.string().nullable(),
  exitCode: z.number().int().nullable(),
});
export type RunSubscribeResult = z.infer<typeof RunSubscribeResultSchema>;
export const TerminalListResultSchema = z.object({ terminals: z.array(TerminalInfoSchema) });
export type TerminalListResult = z.infer<typeof TerminalListResultSchema>;
export const TerminalAttachResultSchema = TerminalInfoSchema.extend({ offset: Offset });
export type TerminalAttachResult = z.infer<typeof TerminalAttachResultSchema>;
export const TerminalInputResultSchema = z.object({ bytesWritten: z.number().int().nonnegative() });
export type TerminalInputResult = z.infer<typeof TerminalInputResultSchema>;
export const TerminalCloseResultSchema = z.object({ terminalId: z.string(), closed: z.literal(true) });
export type TerminalCloseResult = z.infer<typeof TerminalCloseResultSchema>;

// ---- server → client events ----

/** `data` is whole UTF-8 characters; `offset` is the chunk's byte offset within its own stream. */
export const RunOutputEventSchema = z.object({ runId: z.string(), stream: z.enum(["stdout", "stderr"]), offset: Offset, data: z.string() });
export type RunOutputEvent = z.infer<typeof RunOutputEventSchema>;
/**
 * An output event's `data` in either encoding: text, or to a subscriber that asked for `encoding: "binary"` the
 * bytes from `offset`, whole characters, as a binary attachment (the runner sends a Buffer; a browser's socket.io
 * client hands over an ArrayBuffer). outputText / outputBytes read either.
 */
export const OutputDataSchema = z.union([
  z.string(),
  z.custom<Uint8Array | ArrayBuffer>((value) => value instanceof Uint8Array || value instanceof ArrayBuffer, "must be text or bytes"),
]);
export type OutputData = z.infer<typeof OutputDataSchema>;
/** `run:output` as it travels: `data` in the subscriber's encoding. */
export const RunOutputWireEventSchema = RunOutputEventSchema.extend({ data: OutputDataSchema });
export type RunOutputWireEvent = z.infer<typeof RunOutputWireEventSchema>;
export const RunStatusEventSchema = z.object({
  runId: z.string(),
  sessionId: z.string(),
  status: z.string(),
  outcome: z.string().nullable(),
  exitCode: z.number().int().nullable(),
});
export type RunStatusEvent = z.infer<typeof RunStatusEventSchema>;
/** Sent to the calling socket as soon as a `tool:call`'s run exists (`callId` is the client's, or null). */
export const RunStartedEventSchema = z.object({ callId: z.string().nullable(), runId: z.string(), sessionId: z.string() });
export type RunStartedEvent = z.infer<typeof RunStartedEventSchema>;
/** `offset` is the byte offset in the process's combined log (both streams in the order written). */
export const ProcessOutputEventSchema = z.object({
  sessionId: z.string(),
  processId: z.string(),
  stream: z.literal("combined"),
  offset: Offset,
  data: z.string(),
});
export type ProcessOutputEvent = z.infer<typeof ProcessOutputEventSchema>;
/** `process:output` as it travels: `data` in the subscriber's encoding. */
export const ProcessOutputWireEventSchema = ProcessOutputEventSchema.extend({ data: OutputDataSchema });
export type ProcessOutputWireEvent = z.infer<typeof ProcessOutputWireEventSchema>;

/** An output event's `data` as bytes, in either encoding (text is UTF-8 encoded). */
export function outputBytes(data: OutputData): Uint8Array {
  if (typeof data === "string") return new TextEncoder().encode(data);
  return data instanceof Uint8Array ? data : new Uint8Array(data);
}

const utf8 = new TextDecoder();
/** An output event's `data` as text, in either encoding: a binary event is whole characters, so it decodes alone. */
export function outputText(data: OutputData): string {
  return typeof data === "string" ? data : utf8.decode(data);
}
export const ProcessStatusEventSchema = z.object({
  sessionId: z.string(),
  processId: z.string(),
  status: z.string(),
  exitCode: z.number().int().nullable(),
});
export type ProcessStatusEvent = z.infer<typeof ProcessStatusEventSchema>;
/** `path` is relative to /workspace; "." means anything may have changed. */
export const FileChangedEventSchema = z.object({ sessionId: z.string(), path: z.string() });
export type FileChangedEvent = z.infer<typeof FileChangedEventSchema>;
export const SessionStatusEventSchema = z.object({
  sessionId: z.string(),
  status: z.string(),
  terminationCause: z.string().nullable(),
  /** Set when autonomy changed (PATCH /api/sessions/:id), with who changed it and when. */
  autonomy: AutonomySchema.optional(),
  autonomyChangedBy: z.string().optional(),
  autonomyChangedAt: z.string().nullable().optional(),
});
export type SessionStatusEvent = z.infer<typeof SessionStatusEventSchema>;

/** Every client → server event's payload schema, by event name (what the runner safeParses). */
export const CLIENT_EVENT_PAYLOADS = {
  "session:join": SessionRefSchema,
  "session:leave": SessionRefSchema,
  "tool:call": ToolCallEventSchema,
  "process:subscribe": ProcessSubscribeSchema,
  "run:subscribe": RunSubscribeSchema,
  "run:cancel": RunCancelRequestSchema,
  "terminal:open": TerminalOpenSchema,
  "terminal:list": TerminalListSchema,
  "terminal:attach": TerminalAttachSchema,
  "terminal:input": TerminalInputSchema,
  "terminal:resize": TerminalResizeSchema,
  "terminal:rename": TerminalRenameSchema,
  "terminal:close": TerminalCloseSchema,
} as const;

/** Every server → client event's payload schema, by event name. */
export const SERVER_EVENT_PAYLOADS = {
  "run:output": RunOutputWireEventSchema,
  "run:status": RunStatusEventSchema,
  "run:started": RunStartedEventSchema,
  "process:output": ProcessOutputWireEventSchema,
  "process:status": ProcessStatusEventSchema,
  "file:changed": FileChangedEventSchema,
  "session:status": SessionStatusEventSchema,
  "approval:created": ApprovalRequestSchema,
  "approval:decided": ApprovalRequestSchema,
  "terminal:output": TerminalOutputEventSchema,
  "terminal:exit": TerminalExitEventSchema,
} as const;

type Payload<E extends keyof typeof CLIENT_EVENT_PAYLOADS> = z.input<(typeof CLIENT_EVENT_PAYLOADS)[E]>;

/** Browser → runner. An event without a payload (`runs:subscribe`) is sent with only its ack. */
export interface ClientToServerEvents {
  "session:join": (payload: Payload<"session:join">, ack?: SocketAck<SessionJoinResult>) => void;
  "session:leave": (payload: Payload<"session:leave">, ack?: SocketAck<SessionLeaveResult>) => void;
  /** The ack is the ToolResult, or the parked call (then waited on over REST with `?wait=`). */
  "tool:call": (payload: Payload<"tool:call">, ack: SocketAck<ToolCallAnswer>) => void;
  "process:subscribe": (payload: Payload<"process:subscribe">, ack?: SocketAck<ProcessSubscribeResult>) => void;
  "run:subscribe": (payload: Payload<"run:subscribe">, ack?: SocketAck<RunSubscribeResult>) => void;
  "runs:subscribe": (ack?: SocketAck<SubscribeResult>) => void;
  "approvals:subscribe": (ack?: SocketAck<SubscribeResult>) => void;
  /** The IDE's Stop: `err.code` is `conflict` when the run is not running. */
  "run:cancel": (payload: Payload<"run:cancel">, ack: SocketAck<RunCancelResult>) => void;
  "terminal:open": (payload: Payload<"terminal:open">, ack: SocketAck<TerminalInfo>) => void;
  "terminal:list": (payload: Payload<"terminal:list">, ack: SocketAck<TerminalListResult>) => void;
  "terminal:attach": (payload: Payload<"terminal:attach">, ack: SocketAck<TerminalAttachResult>) => void;
  "terminal:input": (payload: Payload<"terminal:input">, ack?: SocketAck<TerminalInputResult>) => void;
  "terminal:resize": (payload: Payload<"terminal:resize">, ack?: SocketAck<TerminalInfo>) => void;
  "terminal:rename": (payload: Payload<"terminal:rename">, ack: SocketAck<TerminalInfo>) => void;
  "terminal:close": (payload: Payload<"terminal:close">, ack: SocketAck<TerminalCloseResult>) => void;
}

/** Runner → browser. */
export interface ServerToClientEvents {
  /** `data` is text, or bytes to a subscriber that asked for `encoding: "binary"` (outputText/outputBytes read either). */
  "run:output": (event: RunOutputWireEvent) => void;
  "run:status": (event: RunStatusEvent) => void;
  "run:started": (event: RunStartedEvent) => void;
  "process:output": (event: ProcessOutputWireEvent) => void;
  "process:status": (event: ProcessStatusEvent) => void;
  "file:changed": (event: FileChangedEvent) => void;
  "session:status": (event: SessionStatusEvent) => void;
  "approval:created": (event: ApprovalRequest) => void;
  "approval:decided": (event: ApprovalRequest) => void;
  /** The ack tells the runner the chunk was taken: its flow control for this terminal. */
  "terminal:output": (event: TerminalOutputEvent, ack: () => void) => void;
  "terminal:exit": (event: TerminalExitEvent) => void;
}

/** The result type of a client → server event's ack. */
export type ClientEventResult<E extends keyof ClientToServerEvents> =
  // The ack is the one parameter that is a function (payloads are plain objects).
  Extract<NonNullable<Parameters<ClientToServerEvents[E]>[number]>, (...args: never[]) => void> extends SocketAck<infer R> ? R : never;
