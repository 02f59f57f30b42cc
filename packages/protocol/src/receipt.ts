import { z } from "zod";
import { CallerKindSchema } from "./admission";

/**
 * A receipt is the sealed record of one run (packages/receipts seals and verifies it).
 *
 *   body      everything recorded about the run, plus its place in the runner's hash chain
 *   digest    sha256 hex of the RFC 8785 canonical JSON of `body`
 *   signature Ed25519 by the runner's key over the ASCII bytes of `RECEIPT_SIGNING_PREFIX + digest`
 *
 * Objects are strict: a receipt holds exactly these fields, so nothing unplanned (a secret) rides along,
 * and an added field fails verification by name. Absent values are `null`, never a missing key, so one
 * body has one canonical form. Bump RECEIPT_VERSION on any change to the body's meaning.
 */
export const RECEIPT_VERSION = 1;

/** Domain separation: the runner key signs `berth-receipt-v1:<digest hex>`, never a bare hash. */
export const RECEIPT_SIGNING_PREFIX = "berth-receipt-v1:";

export const Sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, "expected a lowercase sha256 hex digest");
export type Sha256Hex = z.infer<typeof Sha256HexSchema>;

const IsoTimeSchema = z.iso.datetime();
const BytesSchema = z.number().int().nonnegative();

/** Same values as Run.outcome (docs/tools.md run_script outcome precedence, plus interrupted). */
export const RunOutcomeSchema = z.enum([
  "succeeded",
  "failed",
  "aborted",
  "timed-out",
  "oom-killed",
  "spawn-failed",
  "cleanup-incomplete",
  "interrupted",
  "refused",
]);
export type RunOutcome = z.infer<typeof RunOutcomeSchema>;

export const ReceiptRunSchema = z.strictObject({
  id: z.string().min(1),
  sessionId: z.string().min(1),
  userId: z.string().min(1),
  tool: z.string().min(1),
  actionClass: z.string().nullable(),
  /** Who started the run (browser: a person; api: a script; agent: MCP). Absent on receipts sealed before it was recorded, which still verify. */
  caller: CallerKindSchema.nullable().optional(),
});
export type ReceiptRun = z.infer<typeof ReceiptRunSchema>;

export const ReceiptFileHashSchema = z.strictObject({
  path: z.string(),
  sha256: Sha256HexSchema,
  bytes: BytesSchema,
});
export type ReceiptFileHash = z.infer<typeof ReceiptFileHashSchema>;

/** A declared output after the run; `sha256`/`bytes` are null when the file is absent. */
export const ReceiptOutputHashSchema = z.strictObject({
  path: z.string(),
  status: z.enum(["created", "modified", "unchanged", "absent"]),
  sha256: Sha256HexSchema.nullable(),
  bytes: BytesSchema.nullable(),
});
export type ReceiptOutputHash = z.infer<typeof ReceiptOutputHashSchema>;

/** One stored log file of the run (`stdout`, `stderr`, or a combined process log). */
export const ReceiptLogSchema = z.strictObject({
  name: z.string().min(1),
  sha256: Sha256HexSchema,
  bytes: BytesSchema,
});
export type ReceiptLog = z.infer<typeof ReceiptLogSchema>;

/**
 * The container's security posture as started (docs/architecture.md "Locked down by default"). The core fields are
 * required; a driver may add more JSON fields (tmpfs mounts, seccomp profile), which are signed too.
 */
export const SandboxPostureSchema = z.looseObject({
  user: z.string(),
  readOnlyRootfs: z.boolean(),
  capDrop: z.array(z.string()),
  noNewPrivileges: z.boolean(),
  network: z.string(),
  init: z.boolean(),
  pidsLimit: z.number().int().nullable(),
  memoryBytes: z.number().int().nullable(),
  nanoCpus: z.number().int().nullable(),
});
export type SandboxPosture = z.infer<typeof SandboxPostureSchema>;

export const ReceiptSandboxSchema = z.strictObject({
  imageId: z.string().min(1),
  posture: SandboxPostureSchema,
});
export type ReceiptSandbox = z.infer<typeof ReceiptSandboxSchema>;

/** An operator's approval that let the run go ahead: who, when, and the sha256 of what they saw. */
export const ReceiptApprovalSchema = z.strictObject({
  id: z.string().min(1),
  approvedBy: z.string().min(1),
  approvedAt: IsoTimeSchema,
  sha256: Sha256HexSchema,
});
export type ReceiptApproval = z.infer<typeof ReceiptApprovalSchema>;

const ReceiptCheckSchema = z.strictObject({
  tool: z.string(),
  ok: z.boolean(),
  runId: z.string().nullable(),
  receiptId: z.string().nullable(),
});

/** What a compete or review plan decided: the tree it started from, each candidate with its checks, the winner. */
export const ReceiptPlanSchema = z.strictObject({
  topology: z.enum(["compete", "review"]),
  /** The tree the candidates started from (TreeIdentity.text). */
  tree: z.string(),
  candidates: z.array(
    z.strictObject({
      id: z.string(),
      ok: z.boolean(),
      runId: z.string().nullable(),
      /** The commit holding the candidate's changes on its branch. */
      commit: z.string().nullable(),
      checks: z.array(ReceiptCheckSchema),
    }),
  ),
  winner: z.string().nullable(),
  applied: z.boolean(),
});
export type ReceiptPlan = z.infer<typeof ReceiptPlanSchema>;

export const ReceiptTimingSchema = z.strictObject({
  startedAt: IsoTimeSchema,
  endedAt: IsoTimeSchema,
  durationMs: z.number().int().nonnegative(),
  /** Time the call was parked waiting for an approval, if it was. */
  approvalWaitMs: z.number().int().nonnegative().nullable(),
});
export type ReceiptTiming = z.infer<typeof ReceiptTimingSchema>;

export const ReceiptBodySchema = z
  .strictObject({
    v: z.literal(RECEIPT_VERSION),
    id: z.string().min(1),
    /** The hash chain: one ledger per runner; seq counts from 0; prevDigest is null only at seq 0. */
    ledgerId: z.string().min(1),
    seq: z.number().int().nonnegative(),
    prevDigest: Sha256HexSchema.nullable(),
    issuedAt: IsoTimeSchema,
    run: ReceiptRunSchema,
    /** Redacted arguments: env values dropped (keys kept), secret-looking keys and tokens replaced. */
    args: z.json(),
    envKeys: z.array(z.string()),
    script: ReceiptFileHashSchema.nullable(),
    inputs: z.array(ReceiptFileHashSchema),
    outputs: z.array(ReceiptOutputHashSchema),
    outcome: RunOutcomeSchema,
    exitCode: z.number().int().nullable(),
    timing: ReceiptTimingSchema,
    logs: z.array(ReceiptLogSchema),
    sandbox: ReceiptSandboxSchema.nullable(),
    approvals: z.array(ReceiptApprovalSchema),
    /** A compete or review plan's judgement: the winner and every check. Present only on such a plan's receipt. */
    plan: ReceiptPlanSchema.optional(),
  })
  .refine((body) => (body.seq === 0) === (body.prevDigest === null), {
    path: ["prevDigest"],
    message: "must be null at seq 0 and a digest after it",
  });
export type ReceiptBody = z.infer<typeof ReceiptBodySchema>;

export const ReceiptSignatureSchema = z.strictObject({
  alg: z.literal("Ed25519"),
  /** First 16 hex chars of sha256 over the public key's SPKI DER. */
  keyId: z.string().regex(/^[0-9a-f]{16}$/, "expected 16 lowercase hex characters"),
  /** base64 of the 64-byte Ed25519 signature. */
  value: z.string().regex(/^[A-Za-z0-9+/]{86}==$/, "expected a base64 Ed25519 signature (64 bytes)"),
});
export type ReceiptSignature = z.infer<typeof ReceiptSignatureSchema>;

export const ReceiptSchema = z.strictObject({
  body: ReceiptBodySchema,
  digest: Sha256HexSchema,
  signature: ReceiptSignatureSchema,
});
export type Receipt = z.infer<typeof ReceiptSchema>;

export function isReceipt(value: unknown): value is Receipt {
  return ReceiptSchema.safeParse(value).success;
}

// ---- receipts endpoints (docs/api.md) ----

/** `GET /api/receipts/public-key` */
export const ReceiptPublicKeySchema = z.object({
  keyId: z.string(),
  publicKey: z.string(),
});
export type ReceiptPublicKey = z.infer<typeof ReceiptPublicKeySchema>;

/**
 * One runner key the deployment publishes (`GET /api/receipts/keys`). Each runner signs with its own key; a
 * rotation retires the old one, which still verifies what it signed before `retiredAt` and nothing after.
 */
export const ReceiptKeySchema = z.object({
  keyId: ReceiptSignatureSchema.shape.keyId,
  runnerId: z.string().min(1),
  /** SPKI PEM. */
  publicKey: z.string().min(1),
  createdAt: IsoTimeSchema,
  /** When the key stopped signing; absent or null while it is its runner's current key. */
  retiredAt: IsoTimeSchema.nullable().optional(),
});
export type ReceiptKey = z.infer<typeof ReceiptKeySchema>;

/** `GET /api/receipts/keys`, and the keys file `berth-verify --keys` reads. */
export const ReceiptKeysSchema = z.object({ keys: z.array(ReceiptKeySchema) });
export type ReceiptKeys = z.infer<typeof ReceiptKeysSchema>;

/**
 * `POST /api/receipts/keys/rotate` (admin) body: `runnerId`, when given, must be the runner that answers (a 409
 * otherwise), so a rotation meant for one runner is never done by another a proxy picked.
 */
export const RotateReceiptKeyRequestSchema = z.object({ runnerId: z.string().min(1).optional() }).strict();
export type RotateReceiptKeyRequest = z.infer<typeof RotateReceiptKeyRequestSchema>;

/** `POST /api/receipts/keys/rotate` (admin) → the answering runner's new key and the one it retired. */
export const RotateReceiptKeyResultSchema = z.object({ key: ReceiptKeySchema, retired: ReceiptKeySchema });
export type RotateReceiptKeyResult = z.infer<typeof RotateReceiptKeyResultSchema>;

/** `POST /api/receipts/verify` body; the receipt stays unknown so verification can name what is wrong. */
export const VerifyReceiptRequestSchema = z.object({ receipt: z.unknown() });
export type VerifyReceiptRequest = z.infer<typeof VerifyReceiptRequestSchema>;

/** `POST /api/receipts/verify` reply, and what verifyReceipt returns. */
export const VerifyResultSchema = z.object({
  valid: z.boolean(),
  reason: z.string().optional(),
});
export type VerifyResult = z.infer<typeof VerifyResultSchema>;

// `GET /api/shared/:token` is SharedReceiptSchema in api/receipts.ts.
