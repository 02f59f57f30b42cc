import { z } from "zod";

/**
 * How far a running tool call has got, for callers that asked for progress (MCP `progressToken`).
 * `progress` counts what the tool has seen so far (bytes of output for bash and run_script, finished
 * tasks for dispatch, an upstream server's own figure for MCP tools); `total` only when it is known.
 */
export const ToolProgressSchema = z.object({
  progress: z.number().nonnegative(),
  total: z.number().nonnegative().optional(),
  message: z.string().optional(),
});
export type ToolProgress = z.infer<typeof ToolProgressSchema>;

/** Receives a call's progress; it must not throw and must return at once (it runs on the output path). */
export type ToolProgressListener = (progress: ToolProgress) => void;
