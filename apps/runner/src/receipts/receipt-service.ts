import crypto from "node:crypto";
import type { ReceiptRepository, WriteBehind } from "@berth/db";
import { Ledger, loadOrCreateSigningKey, verifyReceipt } from "@berth/receipts";
import type { ReceiptSigner } from "@berth/receipts";
import type { CallerKind, Receipt, RunOutcome, SandboxPosture } from "@berth/protocol";
import { AppError, ReceiptPlanSchema } from "@berth/protocol";
import { hashToken, newId } from "../auth/tokens";

export interface SealRunInput {
  run: { id: string; sessionId: string; userId: string; tool: string; actionClass: string; caller?: CallerKind | null };
  args: unknown;
  env: Record<string, string>;
  details: Record<string, unknown>;
  outcome: RunOutcome;
  exitCode: number | null;
  startedAt: Date;
  endedAt: Date;
  durationMs: number;
  logs: { name: string; sha256: string; bytes: number }[];
  approvals: { id: string; approvedBy: string; approvedAt: string; sha256: string }[];
  approvalWaitMs: number | null;
}

type FileHash = { path: string; sha256: string | null; bytes: number | null; status?: string };

/** Where a session's sandbox image and posture come from (the sandbox driver). */
export type SandboxFacts = (sessionId: string) => { imageId: string; posture: SandboxPosture } | null;

/**
 * Seals a receipt when a run ends: canonical JSON, this runner's hash chain, Ed25519 signature. The
 * chain head is the newest stored receipt; sealing and storing are serialised per ledger (this runner's
 * one) so the chain never forks. A run's reply does not wait for its seal (sealLater): the receipt's id is
 * fixed first, and every read of receipts and runs waits for the seals in flight (WriteBehind).
 */
export class ReceiptService {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly receipts: ReceiptRepository,
    readonly signer: ReceiptSigner,
    private readonly ledger: Ledger,
    private readonly sandboxFacts: SandboxFacts,
    private readonly writes: WriteBehind,
  ) {}

  /** `writes` is the repositories' (Repositories.writes), so their reads wait for what sealLater has queued. */
  static async open(receipts: ReceiptRepository, dataDir: string, sandboxFacts: SandboxFacts, writes: WriteBehind): Promise<ReceiptService> {
    const { signer } = await loadOrCreateSigningKey(dataDir);
    const head = await receipts.chainHead(signer.keyId);
    return new ReceiptService(receipts, signer, new Ledger({ signer, head }), sandboxFacts, writes);
  }

  publicKey(): { keyId: string; publicKey: string } {
    return { keyId: this.signer.keyId, publicKey: this.signer.publicKeyPem };
  }

  /** Seals and stores the run's receipt; resolves with its id once it is stored. */
  sealRun(input: SealRunInput): Promise<string> {
    return this.enqueue(input, crypto.randomUUID());
  }

  /** The receipt's id at once; it is sealed and stored behind the reply, in the ledger's order. */
  sealLater(input: SealRunInput): string {
    const id = crypto.randomUUID();
    this.writes.track(this.enqueue(input, id));
    return id;
  }

  private enqueue(input: SealRunInput, id: string): Promise<string> {
    const next = this.queue.then(() => this.sealNow(input, id));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async sealNow(input: SealRunInput, id: string): Promise<string> {
    const d = input.details;
    const hashOf = (value: unknown): FileHash | null => {
      if (typeof value !== "object" || value === null) return null;
      return value as FileHash;
    };
    const script =
      typeof d.scriptSha256 === "string" && typeof d.script === "string"
        ? { path: d.script, sha256: d.scriptSha256, bytes: typeof d.scriptBytes === "number" ? d.scriptBytes : 0 }
        : null;
    const inputs = (Array.isArray(d.inputs) ? d.inputs : [])
      .map(hashOf)
      .filter((h): h is FileHash & { sha256: string; bytes: number } => h !== null && typeof h.sha256 === "string" && typeof h.bytes === "number")
      .map((h) => ({ path: h.path, sha256: h.sha256, bytes: h.bytes }));
    const outputs = (Array.isArray(d.outputs) ? d.outputs : [])
      .map(hashOf)
      .filter((h): h is FileHash => h !== null)
      .map((h) => ({
        path: h.path,
        status: (h.status ?? "absent") as "created" | "modified" | "unchanged" | "absent",
        sha256: h.sha256 ?? null,
        bytes: h.bytes ?? null,
      }));
    // A compete or review plan's judgement (its run's details.plan) is signed with it.
    const plan = ReceiptPlanSchema.safeParse(d.plan);
    const previousHead = this.ledger.head;
    const receipt = this.ledger.seal({
      id,
      run: input.run,
      args: input.args,
      env: input.env,
      script,
      inputs,
      outputs,
      outcome: input.outcome,
      exitCode: input.exitCode,
      timing: {
        startedAt: input.startedAt.toISOString(),
        endedAt: input.endedAt.toISOString(),
        durationMs: input.durationMs,
        approvalWaitMs: input.approvalWaitMs,
      },
      logs: input.logs,
      sandbox: this.sandboxFacts(input.run.sessionId),
      approvals: input.approvals,
      ...(plan.success ? { plan: plan.data } : {}),
    });
    try {
      await this.receipts.store(input.run.id, receipt);
    } catch (error) {
      this.ledger.reset(previousHead);
      throw error;
    }
    return receipt.body.id;
  }

  async get(id: string): Promise<{ receipt: Receipt; runId: string; sessionId: string } | null> {
    return this.receipts.get(id);
  }

  /** Verifies with this runner's key, including the link to the previous receipt when it is stored. */
  async verify(receipt: unknown): Promise<{ valid: boolean; reason?: string }> {
    const body = (receipt as { body?: { prevDigest?: unknown } } | null)?.body;
    const prevDigest = typeof body?.prevDigest === "string" ? body.prevDigest : null;
    const previous = (prevDigest ? await this.receipts.getByDigest(prevDigest) : null) ?? undefined;
    if (prevDigest && !previous) return { valid: false, reason: `chain link broken: no stored receipt with digest ${prevDigest}` };
    return verifyReceipt(receipt, this.signer.publicKeyPem, previous ? { previous } : {});
  }

  /** A new unguessable share token; only its hash is stored. */
  async share(receiptId: string): Promise<{ token: string }> {
    const token = crypto.randomBytes(24).toString("base64url");
    await this.receipts.createShareLink({ id: newId("share"), receiptId, tokenHash: hashToken(token) });
    return { token };
  }

  async revokeShares(receiptId: string): Promise<number> {
    return this.receipts.revokeShareLinks(receiptId);
  }

  async resolveShare(token: string): Promise<{ receipt: Receipt; runId: string }> {
    const link = await this.receipts.resolveShareLink(hashToken(token));
    if (!link) throw new AppError({ code: "not_found", message: "This share link does not exist or was revoked" });
    return link;
  }
}
