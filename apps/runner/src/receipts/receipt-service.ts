import crypto from "node:crypto";
import type { ReceiptRepository, RunnerKeyRepository, WriteBehind } from "@berth/db";
import { Ledger, loadOrCreateSigningKey, rotateSigningKey, SIGNING_KEY_FILE, verifyReceiptWithKeys } from "@berth/receipts";
import type { ReceiptSigner } from "@berth/receipts";
import type { CallerKind, Receipt, ReceiptKey, RotateReceiptKeyResult, RunOutcome, SandboxPosture } from "@berth/protocol";
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

export interface ReceiptServiceOptions {
  receipts: ReceiptRepository;
  /** Where every runner publishes its keys (GET /api/receipts/keys). */
  runnerKeys: RunnerKeyRepository;
  /** BERTH_RUNNER_ID: the keys it publishes are this runner's, and its ledger runs across them. */
  runnerId: string;
  /** Holds the private key (receipt-signing-key.pem, 0600). */
  dataDir: string;
  sandboxFacts: SandboxFacts;
  /** The repositories' (Repositories.writes), so their reads wait for what sealLater has queued. */
  writes: WriteBehind;
  log?: (line: string) => void;
}

/**
 * Seals a receipt when a run ends: canonical JSON, this runner's hash chain, Ed25519 signature. The
 * chain head is the newest stored receipt; sealing and storing are serialised per ledger (this runner's
 * one) so the chain never forks. A run's reply does not wait for its seal (sealLater): the receipt's id is
 * fixed first, and every read of receipts and runs waits for the seals in flight (WriteBehind).
 *
 * Each runner signs with its own key and publishes it (RunnerKey); verification takes the key a receipt
 * names from every runner's published keys, so a receipt sealed on one runner verifies on any. A rotation
 * (rotateKey) waits its turn in the sealing queue, so every receipt is signed by the key current when it was
 * issued, and the ledger goes on under the new key.
 */
export class ReceiptService {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly options: ReceiptServiceOptions,
    private readonly ledger: Ledger,
  ) {}

  static async open(options: ReceiptServiceOptions): Promise<ReceiptService> {
    const { runnerKeys, runnerId, dataDir } = options;
    let { signer } = await loadOrCreateSigningKey(dataDir);
    const known = await runnerKeys.get(signer.keyId);
    if (known && known.runnerId !== runnerId) {
      throw new AppError({
        code: "internal",
        message: `receipt signing key ${signer.keyId} in ${dataDir} is published for runner ${known.runnerId}, not ${runnerId} (BERTH_RUNNER_ID): each runner needs a data dir of its own; to rename a runner, move its ${SIGNING_KEY_FILE} aside and it makes a new key (the old one stays published for what it signed)`,
      });
    }
    if (known?.retiredAt) {
      // A data dir restored from before a rotation: a retired key never signs again.
      ({ signer } = await rotateSigningKey(dataDir));
      options.log?.(`receipt signing key ${known.keyId} was retired at ${known.retiredAt}: signing with a new key ${signer.keyId}`);
    }
    await runnerKeys.publish({ keyId: signer.keyId, runnerId, publicKey: signer.publicKeyPem });
    const head = await options.receipts.ledgerHead((await runnerKeys.ofRunner(runnerId)).map((k) => k.keyId));
    const ledger = new Ledger({ signer, head, ...(head ? { ledgerId: head.ledgerId } : {}) });
    return new ReceiptService(options, ledger);
  }

  /** BERTH_RUNNER_ID: whose keys this service publishes and signs with. */
  get runnerId(): string {
    return this.options.runnerId;
  }

  get signer(): ReceiptSigner {
    return this.ledger.signer;
  }

  /** This runner's current key (GET /api/receipts/public-key). */
  publicKey(): { keyId: string; publicKey: string } {
    return { keyId: this.signer.keyId, publicKey: this.signer.publicKeyPem };
  }

  /** Every runner's published keys, current and retired (GET /api/receipts/keys). */
  keys(): Promise<ReceiptKey[]> {
    return this.options.runnerKeys.list();
  }

  /** The published key a receipt names (any runner's), or null when none has its keyId. */
  keyOf(receipt: Receipt): Promise<ReceiptKey | null> {
    return this.options.runnerKeys.get(receipt.signature.keyId);
  }

  /**
   * A new key for this runner: after the seals already queued, the new key replaces the old in the data dir, is
   * published, and the old one is retired at that moment; the next receipt is signed by the new key and links to
   * the last one the old key signed.
   */
  rotateKey(): Promise<RotateReceiptKeyResult> {
    const next = this.queue.then(async () => {
      const old = this.signer;
      const { signer } = await rotateSigningKey(this.options.dataDir);
      // Should publishing fail, the old key goes on signing until a restart, which publishes the new one from the
      // data dir and retires the old one then: no receipt is ever signed by a key nobody published.
      const key = await this.options.runnerKeys.publish({ keyId: signer.keyId, runnerId: this.options.runnerId, publicKey: signer.publicKeyPem });
      this.ledger.rotate(signer);
      const retired = await this.options.runnerKeys.get(old.keyId);
      if (!retired) throw new AppError({ code: "internal", message: `receipt key ${old.keyId} was not published, so it cannot be retired` });
      this.options.log?.(`receipt signing key rotated: ${old.keyId} retired at ${retired.retiredAt}, ${signer.keyId} signs from now on`);
      return { key, retired };
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Seals and stores the run's receipt; resolves with its id once it is stored. */
  sealRun(input: SealRunInput): Promise<string> {
    return this.enqueue(input, crypto.randomUUID());
  }

  /**
   * The receipt's id at once; it is sealed and stored behind the reply, in the ledger's order, and after the run's
   * own writes behind the reply (its row, its end: WriteBehind's `after`), since the receipt row references the run's.
   */
  sealLater(input: SealRunInput): string {
    const id = crypto.randomUUID();
    this.options.writes.track(this.enqueue(input, id, { behind: true }));
    return id;
  }

  private enqueue(input: SealRunInput, id: string, opts: { behind?: boolean } = {}): Promise<string> {
    // Behind a reply its turn starts after the reply went out (WriteBehind.later): a signature and database writes.
    const seal = () => (opts.behind ? this.options.writes.later(() => this.sealNow(input, id), { after: input.run.id }) : this.sealNow(input, id));
    const next = this.queue.then(seal);
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
      sandbox: this.options.sandboxFacts(input.run.sessionId),
      approvals: input.approvals,
      ...(plan.success ? { plan: plan.data } : {}),
    });
    try {
      await this.options.receipts.store(input.run.id, receipt);
    } catch (error) {
      this.ledger.reset(previousHead);
      throw error;
    }
    return receipt.body.id;
  }

  async get(id: string): Promise<{ receipt: Receipt; runId: string; sessionId: string } | null> {
    return this.options.receipts.get(id);
  }

  /**
   * Verifies against every runner's published keys (the one the receipt names, unless retired before it was
   * issued), including the link to the previous receipt when it is stored.
   */
  async verify(receipt: unknown): Promise<{ valid: boolean; reason?: string }> {
    const body = (receipt as { body?: { prevDigest?: unknown } } | null)?.body;
    const prevDigest = typeof body?.prevDigest === "string" ? body.prevDigest : null;
    const previous = (prevDigest ? await this.options.receipts.getByDigest(prevDigest) : null) ?? undefined;
    if (prevDigest && !previous) return { valid: false, reason: `chain link broken: no stored receipt with digest ${prevDigest}` };
    return verifyReceiptWithKeys(receipt, await this.keys(), previous ? { previous } : {});
  }

  /** A new unguessable share token; only its hash is stored. */
  async share(receiptId: string): Promise<{ token: string }> {
    const token = crypto.randomBytes(24).toString("base64url");
    await this.options.receipts.createShareLink({ id: newId("share"), receiptId, tokenHash: hashToken(token) });
    return { token };
  }

  async revokeShares(receiptId: string): Promise<number> {
    return this.options.receipts.revokeShareLinks(receiptId);
  }

  async resolveShare(token: string): Promise<{ receipt: Receipt; runId: string }> {
    const link = await this.options.receipts.resolveShareLink(hashToken(token));
    if (!link) throw new AppError({ code: "not_found", message: "This share link does not exist or was revoked" });
    return link;
  }
}
