import { z } from "zod";
import { ReceiptPlanSchema, TreeModeSchema } from "@berth/protocol";

/**
 * What a compete or review plan keeps in its run's details beside the task outcomes: the judgement its receipt
 * signs (`plan`) and where its trees are (`trees`), which `apply-winner` and `clear` read back.
 */
export const CompeteRecordSchema = z.object({
  plan: ReceiptPlanSchema,
  trees: z.object({
    competeId: z.string(),
    mode: TreeModeSchema,
    /** The commit every candidate started from. */
    base: z.string(),
    /** The folder holding one tree per candidate, inside the container. */
    root: z.string(),
    candidates: z.array(z.object({ candidate: z.string(), path: z.string(), branch: z.string() })),
  }),
});
export type CompeteRecord = z.infer<typeof CompeteRecordSchema>;
