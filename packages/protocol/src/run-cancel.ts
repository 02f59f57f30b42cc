import { z } from "zod";

/** `POST /api/runs/:id/cancel` and socket `run:cancel {runId}`: the IDE's Stop (docs/api.md). */
export const RunCancelRequestSchema = z.object({ runId: z.string().min(1, "must not be empty") });
export type RunCancelRequest = z.infer<typeof RunCancelRequestSchema>;

export const RunCancelResultSchema = z.object({
  runId: z.string(),
  /** `finished` once the run has ended; `running` if it had not within the wait (it still ends `aborted`). */
  status: z.string(),
  outcome: z.string().nullable(),
});
export type RunCancelResult = z.infer<typeof RunCancelResultSchema>;
