import { z } from "zod";
import { ProcessStatusSchema } from "../agent-rpc";
import { noNul } from "./lenient";

export const BASH_ACTIONS = ["exec", "start", "status", "list", "logs", "write", "stop"] as const;
export type BashAction = (typeof BASH_ACTIONS)[number];
export const BASH_DEFAULT_TIMEOUT_MS = 30_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
export const BASH_STREAM_CAP_BYTES = 10 * 1024 * 1024;
export const BASH_MAX_RUNNING = 16;
export const BASH_DEFAULT_LOG_LIMIT = 12_000;
export const BASH_MAX_LOG_LIMIT = 1024 * 1024;
export const PROCESS_ID_PATTERN = /^proc_[0-9a-f]{32}$/;

export const BashArgsSchema = z.object({
  action: z.enum(BASH_ACTIONS, { error: (issue) => `Unsupported bash action: ${String(issue.input)}` }).default("exec"),
  command: z
    .string()
    .min(1, "must not be empty")
    .max(1024 * 1024, "must be at most 1048576 characters")
    .refine(noNul, "must not contain NUL bytes")
    .optional(),
  cwd: z
    .string()
    .min(1, "must not be empty")
    .max(4096, "must be at most 4096 characters")
    .refine(noNul, "must not contain NUL bytes")
    .optional(),
  timeoutMs: z
    .number()
    .int()
    .min(1, "must be at least 1")
    .max(BASH_MAX_TIMEOUT_MS, `must be at most ${BASH_MAX_TIMEOUT_MS} (use action=start for longer commands)`)
    .default(BASH_DEFAULT_TIMEOUT_MS),
  processId: z.string().max(64, "must be at most 64 characters").optional(),
  /** Byte offset into the stored log; negative counts back from the end. */
  offset: z.number().int().optional(),
  limit: z
    .number()
    .int()
    .min(1, "must be at least 1")
    .max(BASH_MAX_LOG_LIMIT, `must be at most ${BASH_MAX_LOG_LIMIT}`)
    .default(BASH_DEFAULT_LOG_LIMIT),
  input: z
    .string()
    .max(8 * 1024 * 1024, "must be at most 8388608 characters")
    .optional(),
  closeStdin: z.boolean().optional(),
});
export type BashArgs = z.infer<typeof BashArgsSchema>;

export const BashExecDetailsSchema = z.object({
  exitCode: z.number().int(),
  stdout: z.string(),
  stderr: z.string(),
  timedOut: z.boolean(),
  durationMs: z.number(),
  /** Set when a signal ended the command (exitCode is then 128 + signal number, or -1 on timeout). */
  signal: z.string().nullable().optional(),
  aborted: z.boolean().optional(),
});
export type BashExecDetails = z.infer<typeof BashExecDetailsSchema>;

export const BackgroundProcessInfoSchema = z.object({
  processId: z.string(),
  command: z.string(),
  cwd: z.string(),
  status: ProcessStatusSchema,
  pid: z.number().int().nullable(),
  exitCode: z.number().int().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});
export type BackgroundProcessInfo = z.infer<typeof BackgroundProcessInfoSchema>;

/** action=start: the process is running; read it back with status/logs. */
export const BashStartDetailsSchema = BackgroundProcessInfoSchema.pick({ processId: true, status: true, pid: true, command: true, cwd: true });
export type BashStartDetails = z.infer<typeof BashStartDetailsSchema>;

export const BashListDetailsSchema = z.object({ processes: z.array(BackgroundProcessInfoSchema) });

export const BashLogsDetailsSchema = z.object({
  processId: z.string(),
  content: z.string(),
  offset: z.number().int(),
  nextOffset: z.number().int(),
  truncated: z.boolean(),
  status: ProcessStatusSchema,
  exitCode: z.number().int().nullable(),
});
export type BashLogsDetails = z.infer<typeof BashLogsDetailsSchema>;

export const BashWriteDetailsSchema = z.object({ bytesWritten: z.number().int() });

/** Every bash action's result, one per action: exec, start, status/stop, list, logs, write. */
export const BashDetailsSchema = z.union([
  BashExecDetailsSchema,
  BashStartDetailsSchema,
  BackgroundProcessInfoSchema,
  BashListDetailsSchema,
  BashLogsDetailsSchema,
  BashWriteDetailsSchema,
]);
