import { z } from "zod";

// ---- /api/runs (docs/api.md "REST") ----

/** A run is running until it ends; `interrupted` is a run its runner or sandbox lost (the cause says which). */
export const RUN_STATUSES = ["running", "finished", "interrupted"] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** `GET /api/runs` query. */
export const RunListQuerySchema = z.object({
  sessionId: z.string().optional(),
  status: RunStatusSchema.optional(),
  outcome: z.string().max(40).optional(),
  limit: z.coerce.number().int().min(1, "must be at least 1").max(500, "must be at most 500").default(50),
  before: z.iso.datetime().optional(),
});
export type RunListQuery = z.infer<typeof RunListQuerySchema>;

/** A run as the API returns it (list, detail, and the share page's summary picks from it). */
export const RunViewSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  userId: z.string(),
  /** Who started it: browser (a person), api (a script), agent (MCP); null on runs from before it was recorded. */
  caller: z.string().nullable(),
  tool: z.string(),
  /** What made it: script, process, mcp, terminal… */
  kind: z.string(),
  status: z.string(),
  outcome: z.string().nullable(),
  /** Why it ended as it did when that is not the command's own doing (runner_restart: …, sandbox_stopped: …). */
  cause: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  args: z.unknown(),
  details: z.unknown(),
  stdoutBytes: z.number().int(),
  stderrBytes: z.number().int(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  durationMs: z.number().int().nullable(),
  receiptId: z.string().nullable(),
});
export type RunView = z.infer<typeof RunViewSchema>;

/** `GET /api/runs`, newest first. */
export const RunListSchema = z.object({ runs: z.array(RunViewSchema) });

/** One tool call recorded against a run (`GET /api/runs/:id`). */
export const ToolCallViewSchema = z.object({
  id: z.string(),
  tool: z.string(),
  caller: z.string(),
  via: z.string().nullable(),
  actionClass: z.string(),
  verdict: z.string(),
  approvalId: z.string().nullable(),
  ok: z.boolean().nullable(),
  errorCode: z.string().nullable(),
  durationMs: z.number().int().nullable(),
  createdAt: z.string(),
});
export type ToolCallView = z.infer<typeof ToolCallViewSchema>;

/** `GET /api/runs/:id`. The receipt, once sealed, is `GET /api/receipts/:receiptId`. */
export const RunDetailSchema = z.object({ run: RunViewSchema, toolCalls: z.array(ToolCallViewSchema) });
export type RunDetail = z.infer<typeof RunDetailSchema>;

/** Which log a page reads: `combined` is both streams in the order written. */
export const RunLogStreamSchema = z.enum(["stdout", "stderr", "combined"]);
export type RunLogStream = z.infer<typeof RunLogStreamSchema>;

/** `GET /api/runs/:id/logs` query: `offset` and `limit` are bytes; `download=1` answers the whole stream as a file. */
export const RunLogsQuerySchema = z.object({
  stream: RunLogStreamSchema.default("stdout"),
  offset: z.coerce.number().int().min(0, "must be ≥ 0").default(0),
  limit: z.coerce.number().int().min(1).max(4 * 1024 * 1024, "must be at most 4194304").default(256 * 1024),
  download: z.enum(["0", "1"]).optional(),
  /** `1`: the page also says when its bytes arrived (`times`). */
  timestamps: z.enum(["0", "1"]).optional(),
});
export type RunLogsQuery = z.infer<typeof RunLogsQuerySchema>;

/** A page of a log: `done` once the run has ended and `nextOffset` is the end of the stream. */
export const RunLogPageSchema = z.object({
  content: z.string(),
  offset: z.number().int(),
  nextOffset: z.number().int(),
  size: z.number().int(),
  done: z.boolean(),
  /**
   * With `timestamps=1`: `[byte offset in the stream, epoch ms]` for each output chunk the page holds the start
   * of, the first one the chunk the page starts inside; in order. Empty for runs from before times were kept.
   */
  times: z.array(z.tuple([z.number().int().nonnegative(), z.number()])).optional(),
});
export type RunLogPage = z.infer<typeof RunLogPageSchema>;

/** `GET /api/runs/:id/logs/times` query: when the bytes of a log in [offset, end) arrived (`end`: the log's size). */
export const RunLogTimesQuerySchema = z.object({
  stream: RunLogStreamSchema.default("stdout"),
  offset: z.coerce.number().int().min(0, "must be ≥ 0").default(0),
  end: z.coerce.number().int().min(0, "must be ≥ 0").optional(),
});
export type RunLogTimesQuery = z.infer<typeof RunLogTimesQuerySchema>;

/** The times of a byte range, as a page's `times`, and the log's size when they were read. */
export const RunLogTimesResultSchema = z.object({
  times: RunLogPageSchema.shape.times.unwrap(),
  size: z.number().int(),
});
export type RunLogTimesResult = z.infer<typeof RunLogTimesResultSchema>;
