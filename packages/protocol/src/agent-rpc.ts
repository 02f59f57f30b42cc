import { z } from "zod";
import { ToolResultSchema } from "./tool-result";
import { SKILL_NAME_PATTERN } from "./api/skills";
import { RunScriptFileHashSchema } from "./tools/run-script";

export * from "./agent-output-frame";

/**
 * The wire between the runner and berth-agent inside a session container: JSON-RPC 2.0, one JSON
 * message per line, over the container's attached stdin (runner → agent) and stdout (agent → runner); on
 * stdout, live output comes as binary frames between the lines (agent-output-frame.ts).
 * The agent logs to stderr only. Bump AGENT_PROTOCOL_VERSION on any incompatible change; the runner
 * refuses an agent whose hello reports another version.
 */
export const AGENT_PROTOCOL_VERSION = 2;

export const JsonRpcIdSchema = z.union([z.number().int(), z.string()]);

export const JsonRpcRequestSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: JsonRpcIdSchema,
  method: z.string(),
  params: z.unknown().optional(),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;

export const JsonRpcErrorSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});

export const JsonRpcResponseSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: JsonRpcIdSchema.nullable(),
  result: z.unknown().optional(),
  error: JsonRpcErrorSchema.optional(),
});
export type JsonRpcResponse = z.infer<typeof JsonRpcResponseSchema>;

export const JsonRpcNotificationSchema = z.object({
  jsonrpc: z.literal("2.0"),
  method: z.string(),
  params: z.unknown().optional(),
});
export type JsonRpcNotification = z.infer<typeof JsonRpcNotificationSchema>;

/** Standard JSON-RPC error codes, plus ours in the server range. */
export const RpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  Aborted: -32001,
} as const;

// ---- methods (runner → agent) ----

export const AgentHelloParamsSchema = z.object({ runnerVersion: z.string().optional() });
export const AgentHelloResultSchema = z.object({
  agentVersion: z.string(),
  protocolVersion: z.number().int(),
  pid: z.number().int(),
  uid: z.number().int(),
  node: z.string(),
  workspace: z.string(),
});
export type AgentHelloResult = z.infer<typeof AgentHelloResultSchema>;

export const AgentPingResultSchema = z.object({
  now: z.number(),
  rssBytes: z.number(),
  /** Background processes still running: the runner does not idle-stop a sandbox that has one. */
  runningProcesses: z.number().int().nonnegative(),
});
export type AgentPingResult = z.infer<typeof AgentPingResultSchema>;

/**
 * Runs one tool inside the container. `args` were validated by the runner already; the agent validates
 * again (it trusts nothing on its stdin). `callId` names the call for output notifications and abort.
 * `env` is the session's declared environment, added to the clean environment of spawned processes.
 */
export const ToolCallParamsSchema = z.object({
  tool: z.string(),
  args: z.unknown(),
  callId: z.string(),
  env: z.record(z.string(), z.string()).optional(),
  /**
   * The sha256 an approval bound for each file the call reads or changes (path as in the args; null: it
   * did not exist). The agent refuses the call, naming the file, when one changed since the approval.
   */
  expect: z.record(z.string(), z.string().nullable()).optional(),
  /** A compete candidate's tree (`<competeId>/<candidate>`, compete-trees.ts): the call's paths resolve there, not in /workspace. */
  worktree: z.string().max(140).optional(),
});
export type ToolCallParams = z.infer<typeof ToolCallParamsSchema>;
export const ToolCallResultSchema = ToolResultSchema;

export const ToolAbortParamsSchema = z.object({ callId: z.string() });
export const ToolAbortResultSchema = z.object({ aborted: z.boolean() });

/** At most this many bytes of a previewed file come back from files.hash (the approval text shows them). */
export const FILE_PREVIEW_MAX_BYTES = 16 * 1024;

/**
 * Read-only: the sha256 of workspace files (as run_script hashes them for receipts), and the first bytes
 * of one of them. The runner binds these into an approval's text before parking a call.
 */
export const FilesHashParamsSchema = z.object({
  paths: z.array(z.string()).max(256),
  preview: z.string().optional(),
});
export type FilesHashParams = z.infer<typeof FilesHashParamsSchema>;
export const FilesHashResultSchema = z.object({
  files: z.array(RunScriptFileHashSchema),
  preview: z.object({ path: z.string(), text: z.string(), truncated: z.boolean() }).optional(),
});
export type FilesHashResult = z.infer<typeof FilesHashResultSchema>;

/**
 * The skill catalog to mount read-only at SKILLS_ROOT (`/skills/<name>/SKILL.md`, the stored body). The agent
 * writes it as root (the workspace user can read it, never write it) and drops skills that are not listed.
 */
export const SkillsSyncParamsSchema = z.object({
  skills: z.array(z.object({ name: z.string().regex(SKILL_NAME_PATTERN), body: z.string() })).max(1000),
});
export type SkillsSyncParams = z.infer<typeof SkillsSyncParamsSchema>;
export const SkillsSyncResultSchema = z.object({
  root: z.string(),
  skills: z.array(z.string()),
  /** False when the mount already held exactly these skills (nothing was written). */
  written: z.boolean(),
});
export type SkillsSyncResult = z.infer<typeof SkillsSyncResultSchema>;

export const AgentMethod = {
  Hello: "agent.hello",
  Ping: "agent.ping",
  ToolCall: "tool.call",
  ToolAbort: "tool.abort",
  FilesHash: "files.hash",
  /** Read-only: the workspace summary `context workspace` shows (WorkspaceSummarySchema). */
  WorkspaceSummary: "workspace.summary",
  /** Writes the skill catalog into the read-only skills root (SkillsSyncParamsSchema). */
  SkillsSync: "skills.sync",
} as const;

// ---- notifications (agent → runner) ----

// Live output (run_script, bash, background processes) is not a notification: it comes as binary frames
// between the lines (agent-output-frame.ts).

export const ProcessStatusSchema = z.enum(["RUNNING", "EXITED", "STOPPED"]);
export type ProcessStatus = z.infer<typeof ProcessStatusSchema>;

export const ProcessStatusNotificationSchema = z.object({
  processId: z.string(),
  status: ProcessStatusSchema,
  exitCode: z.number().int().nullable(),
});
export type ProcessStatusNotification = z.infer<typeof ProcessStatusNotificationSchema>;

export const AgentNotification = {
  ProcessStatus: "process.status",
} as const;

// ---- ports (runner → agent): a TCP stream to 127.0.0.1:<port> inside the container ----

/**
 * The agent connects to 127.0.0.1:<port> in the container and relays bytes; the container keeps no
 * network. Reads are long polls, as terminal.read: the agent buffers at most PORT_STREAM_BUFFER_BYTES of
 * what the runner has not read and stops reading the socket meanwhile, so a slow browser slows the server
 * instead of growing anyone's memory.
 */
export const PORT_STREAM_MAX_OPEN = 64;
export const PORT_FRAME_MAX_BYTES = 64 * 1024;
export const PORT_STREAM_BUFFER_BYTES = 256 * 1024;

export const PortNumberSchema = z.number().int().min(1).max(65535);
const PortStreamId = z.string().min(1).max(100);

export const PortMethod = {
  Open: "port.open",
  Write: "port.write",
  Read: "port.read",
  Close: "port.close",
  List: "port.list",
} as const;
export type PortMethodName = (typeof PortMethod)[keyof typeof PortMethod];

export function isPortMethod(method: string): method is PortMethodName {
  return (Object.values(PortMethod) as string[]).includes(method);
}

export const PortOpenParamsSchema = z.strictObject({ port: PortNumberSchema });
export const PortOpenResultSchema = z.object({ streamId: z.string() });

/** `data` is base64 of at most PORT_FRAME_MAX_BYTES; answered once the socket took it (drain). */
export const PortWriteParamsSchema = z.strictObject({ streamId: PortStreamId, data: z.string().max(Math.ceil(PORT_FRAME_MAX_BYTES / 3) * 4) });
export const PortWriteResultSchema = z.object({ bytesWritten: z.number().int().nonnegative() });

/** Up to PORT_FRAME_MAX_BYTES as soon as there are any, empty after `waitMs`; `eof`: the server closed and all was read. */
export const PortReadParamsSchema = z.strictObject({ streamId: PortStreamId, waitMs: z.number().int().min(0).max(30_000).default(10_000) });
export const PortReadResultSchema = z.object({ data: z.string(), eof: z.boolean() });

export const PortCloseParamsSchema = z.strictObject({ streamId: PortStreamId });
export const PortCloseResultSchema = z.object({ closed: z.boolean() });

/** TCP sockets in LISTEN on an address the agent reaches (127.0.0.1, 0.0.0.0, ::, ::1), from /proc/net/tcp and tcp6. */
export const ListeningPortSchema = z.object({ port: PortNumberSchema, address: z.string() });
export type ListeningPort = z.infer<typeof ListeningPortSchema>;
export const PortListResultSchema = z.object({ ports: z.array(ListeningPortSchema) });
