import { z } from "zod";
import type { ProcessStatus } from "../agent-rpc";
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

export interface BashExecDetails {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  /** Set when a signal ended the command (exitCode is then 128 + signal number, or -1 on timeout). */
  signal?: string | null;
  aborted?: boolean;
}

export interface BackgroundProcessInfo {
  processId: string;
  command: string;
  cwd: string;
  status: ProcessStatus;
  pid: number | null;
  exitCode: number | null;
  startedAt: string;
  endedAt: string | null;
}

export interface BashLogsDetails {
  processId: string;
  content: string;
  offset: number;
  nextOffset: number;
  truncated: boolean;
  status: ProcessStatus;
  exitCode: number | null;
}
