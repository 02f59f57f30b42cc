import { z } from "zod";
import { ReceiptKeySchema, ReceiptSchema, VerifyResultSchema } from "../receipt";
import { RunViewSchema } from "./runs";

// ---- /api/receipts and /api/shared (docs/api.md "REST"); verify's body and answer are in receipt.ts ----

/** `POST /api/receipts/:id/share` → 201: the token is in this answer only (the runner keeps its hash). */
export const ShareLinkSchema = z.object({ token: z.string(), url: z.string() });
export type ShareLink = z.infer<typeof ShareLinkSchema>;

/** The last bytes of one log on a share page: `offset` is where the tail starts, `size` the whole log's. */
export const SharedLogTailSchema = z.object({ content: z.string(), offset: z.number().int(), size: z.number().int() });
export type SharedLogTail = z.infer<typeof SharedLogTailSchema>;

/** What a share link shows of its run: the summary, nothing else of the session. */
export const SharedRunSchema = RunViewSchema.pick({
  id: true,
  tool: true,
  status: true,
  outcome: true,
  exitCode: true,
  startedAt: true,
  endedAt: true,
  durationMs: true,
});
export type SharedRun = z.infer<typeof SharedRunSchema>;

/** `GET /api/shared/:token` (no auth): `combined` is both streams in the order written. */
export const SharedReceiptSchema = z.object({
  receipt: ReceiptSchema,
  verification: VerifyResultSchema,
  /** The published key that signed the receipt (any runner's, retired or not); null when none has its keyId. */
  publicKey: ReceiptKeySchema.nullable(),
  run: SharedRunSchema,
  logs: z.object({ stdout: SharedLogTailSchema, stderr: SharedLogTailSchema, combined: SharedLogTailSchema }),
  /**
   * The texts of the approvals the receipt lists (their sha256 is signed in it): a run_script's text carries the
   * script's content, which the share page shows once the text hashes to the signed sha256.
   */
  approvalTexts: z.array(z.object({ id: z.string(), text: z.string() })).optional(),
});
export type SharedReceipt = z.infer<typeof SharedReceiptSchema>;
