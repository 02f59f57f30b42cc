import { randomBytes } from "node:crypto";
import { ApprovalEvent } from "@berth/protocol";
import type { ActionClass, ApprovalDecision, ApprovalEventName, ApprovalRequest } from "@berth/protocol";
import type { ApprovalStore } from "./approval-store";
import { InMemoryApprovalStore } from "./approval-store";
import { systemClock } from "./clock";
import type { Clock } from "./clock";

export const DEFAULT_APPROVAL_TTL_MS = 15 * 60_000;

/** What parking needs; an AdmissionResult plus the session and requester has all of it. */
export interface ParkInput {
  sessionId: string;
  tool: string;
  actionClass: ActionClass;
  text: string;
  sha256: string;
  requestedBy: string;
  /** Overrides the service's expiry for this request. */
  ttlMs?: number;
  /** A function tool's call: its script and the sha256 the text binds (ApprovalRequest.script). */
  script?: { path: string; sha256: string };
}

export interface DecideInput {
  decision: ApprovalDecision;
  /** The sha256 the operator saw; it must equal the request's. */
  sha256: string;
  decidedBy: string;
  note?: string;
}

export type DecideErrorKind = "not_found" | "already_decided" | "expired" | "hash_mismatch";
export type ConsumeErrorKind = "not_found" | "hash_mismatch" | "not_approved" | "already_consumed";

/** HTTP status the runner answers with for each error kind. */
export const APPROVAL_ERROR_STATUS: Record<DecideErrorKind | ConsumeErrorKind, number> = {
  not_found: 404,
  already_decided: 409,
  expired: 409,
  hash_mismatch: 409,
  not_approved: 409,
  already_consumed: 409,
};

export interface ApprovalError<K extends string> {
  kind: K;
  message: string;
  request?: ApprovalRequest;
}

export type ApprovalOutcome<K extends string> =
  { ok: true; request: ApprovalRequest } | { ok: false; error: ApprovalError<K> };

export type WaitOutcome =
  | { status: "approved" | "denied" | "expired" | "consumed" | "cancelled"; request: ApprovalRequest }
  | { status: "timeout" | "aborted" }
  | { status: "not_found" };

export type ApprovalListener = (request: ApprovalRequest) => void;

export interface ApprovalServiceOptions {
  store?: ApprovalStore;
  clock?: Clock;
  ttlMs?: number;
  newId?: () => string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Parks `ask` calls as approval requests and settles them. A decision needs the sha256 of the text
 * the operator saw, happens once, and releases the parked caller at once (events, not polling).
 */
export class ApprovalService {
  private readonly store: ApprovalStore;
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly newId: () => string;
  private readonly listeners = new Map<ApprovalEventName, Set<ApprovalListener>>();
  private readonly waiters = new Map<string, Set<ApprovalListener>>();

  constructor(options: ApprovalServiceOptions = {}) {
    this.store = options.store ?? new InMemoryApprovalStore();
    this.clock = options.clock ?? systemClock;
    this.ttlMs = options.ttlMs ?? DEFAULT_APPROVAL_TTL_MS;
    this.newId = options.newId ?? (() => `apr_${randomBytes(16).toString("hex")}`);
  }

  /** Subscribes to `approval:created` / `approval:decided` (expiry included); returns the unsubscribe. */
  on(event: ApprovalEventName, listener: ApprovalListener): () => void {
    let set = this.listeners.get(event);
    if (set === undefined) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Parks a call. The same pending call (session + sha256) is parked once; changed args are a new request. */
  async park(input: ParkInput): Promise<ApprovalRequest> {
    const existing = await this.store.findPending(input.sessionId, input.sha256);
    if (existing !== undefined) {
      if (!this.isPastExpiry(existing)) return existing;
      await this.expire(existing);
    }
    const now = this.clock.now();
    const request: ApprovalRequest = {
      id: this.newId(),
      sessionId: input.sessionId,
      tool: input.tool,
      actionClass: input.actionClass,
      text: input.text,
      sha256: input.sha256,
      status: "pending",
      requestedBy: input.requestedBy,
      createdAt: iso(now),
      expiresAt: iso(now + (input.ttlMs ?? this.ttlMs)),
      ...(input.script ? { script: input.script } : {}),
    };
    await this.store.insert(request);
    this.emit(ApprovalEvent.Created, request);
    return request;
  }

  get(id: string): Promise<ApprovalRequest | undefined> {
    return this.store.get(id);
  }

  listPending(sessionId?: string): Promise<ApprovalRequest[]> {
    return this.store.listPending(sessionId);
  }

  /** An operator's decision. Refused when the hash differs, when already decided, or after expiry. */
  async decide(id: string, input: DecideInput): Promise<ApprovalOutcome<DecideErrorKind>> {
    const current = await this.store.get(id);
    if (current === undefined) return fail("not_found", `Unknown approval request: ${id}`);
    if (current.status === "pending" && this.isPastExpiry(current)) {
      const expired = (await this.expire(current)) ?? current;
      return fail("expired", `Approval request ${id} expired at ${current.expiresAt}`, expired);
    }
    if (current.status === "expired")
      return fail("expired", `Approval request ${id} expired at ${current.expiresAt}`, current);
    if (current.status !== "pending") {
      return fail("already_decided", `Approval request ${id} was already decided (${current.status})`, current);
    }
    if (input.sha256 !== current.sha256) {
      return fail(
        "hash_mismatch",
        `sha256 does not match approval request ${id}: got ${input.sha256}, the request is ${current.sha256}. Reload the request and review it again.`,
        current,
      );
    }
    const decided = await this.store.transition(id, "pending", {
      status: input.decision === "approve" ? "approved" : "denied",
      decidedBy: input.decidedBy,
      decidedAt: iso(this.clock.now()),
      ...(input.note === undefined ? {} : { note: input.note }),
    });
    if (decided === undefined) {
      // Another decision (or expiry) won the race between our read and our write.
      const now = await this.store.get(id);
      if (now?.status === "expired") return fail("expired", `Approval request ${id} expired at ${now.expiresAt}`, now);
      return fail("already_decided", `Approval request ${id} was already decided (${now?.status ?? "unknown"})`, now);
    }
    this.emitDecided(decided);
    return { ok: true, request: decided };
  }

  /**
   * The requester withdraws a pending call (the route checks who asked). Hash-bound like a decision, so a
   * stale page cannot cancel a newer request; the waiting caller is released with `cancelled`.
   */
  async cancel(id: string, input: { sha256: string; cancelledBy: string }): Promise<ApprovalOutcome<DecideErrorKind>> {
    const current = await this.store.get(id);
    if (current === undefined) return fail("not_found", `Unknown approval request: ${id}`);
    if (current.status !== "pending")
      return fail("already_decided", `Approval request ${id} was already decided (${current.status})`, current);
    if (input.sha256 !== current.sha256)
      return fail("hash_mismatch", `sha256 does not match approval request ${id}: got ${input.sha256}, the request is ${current.sha256}`, current);
    const cancelled = await this.store.transition(id, "pending", {
      status: "cancelled",
      decidedBy: input.cancelledBy,
      decidedAt: iso(this.clock.now()),
      cause: `cancelled by ${input.cancelledBy}, who asked`,
    });
    if (cancelled === undefined) {
      const now = await this.store.get(id);
      return fail("already_decided", `Approval request ${id} was already decided (${now?.status ?? "unknown"})`, now);
    }
    this.emitDecided(cancelled);
    return { ok: true, request: cancelled };
  }

  /** Uses an approval to run its call: once, and only for the exact call (same sha256). */
  async consume(id: string, sha256: string): Promise<ApprovalOutcome<ConsumeErrorKind>> {
    const current = await this.store.get(id);
    if (current === undefined) return fail("not_found", `Unknown approval request: ${id}`);
    if (current.sha256 !== sha256) {
      return fail(
        "hash_mismatch",
        `sha256 does not match approval request ${id}: the call changed since it was approved`,
        current,
      );
    }
    if (current.status === "consumed")
      return fail("already_consumed", `Approval request ${id} was already used`, current);
    if (current.status !== "approved")
      return fail("not_approved", `Approval request ${id} is ${current.status}, not approved`, current);
    const consumed = await this.store.transition(id, "approved", {
      status: "consumed",
      consumedAt: iso(this.clock.now()),
    });
    if (consumed === undefined) return fail("already_consumed", `Approval request ${id} was already used`, current);
    return { ok: true, request: consumed };
  }

  /** For a caller that comes back with the same call: consumes its approved request, if there is one. */
  async consumeApproved(sessionId: string, sha256: string): Promise<ApprovalRequest | undefined> {
    const approved = await this.store.findApproved(sessionId, sha256);
    if (approved === undefined) return undefined;
    const consumed = await this.consume(approved.id, sha256);
    return consumed.ok ? consumed.request : undefined;
  }

  /**
   * Resolves as soon as the request is decided or expires (or on timeout / abort). Subscribes before
   * reading the store, so a decision landing in between is not missed.
   */
  waitForDecision(id: string, timeoutMs: number, signal?: AbortSignal): Promise<WaitOutcome> {
    return new Promise<WaitOutcome>((resolve, reject) => {
      let done = false;
      let expiryTimer: ReturnType<typeof setTimeout> | undefined;
      const cleanup = () => {
        done = true;
        unsubscribe();
        clearTimeout(timeoutTimer);
        clearTimeout(expiryTimer);
        signal?.removeEventListener("abort", onAbort);
      };
      const finish = (outcome: WaitOutcome) => {
        if (done) return;
        cleanup();
        resolve(outcome);
      };
      const onAbort = () => finish({ status: "aborted" });
      const unsubscribe = this.subscribe(id, (request) => {
        if (request.status !== "pending") finish(outcomeOf(request));
      });
      const timeoutTimer = setTimeout(() => finish({ status: "timeout" }), timeoutMs);
      if (signal?.aborted) return finish({ status: "aborted" });
      signal?.addEventListener("abort", onAbort, { once: true });

      this.store.get(id).then(
        async (request) => {
          if (done) return;
          if (request === undefined) return finish({ status: "not_found" });
          if (request.status !== "pending") return finish(outcomeOf(request));
          const left = Date.parse(request.expiresAt) - this.clock.now();
          if (left <= 0) {
            await this.expire(request);
            return;
          }
          if (left <= timeoutMs) expiryTimer = setTimeout(() => void this.expire(request).catch(() => undefined), left);
        },
        (error: unknown) => {
          if (done) return;
          cleanup();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /** Expires every pending request past its time; the runner calls this periodically. */
  async expireDue(): Promise<ApprovalRequest[]> {
    const expired: ApprovalRequest[] = [];
    for (const request of await this.store.listPending()) {
      if (!this.isPastExpiry(request)) continue;
      const done = await this.expire(request);
      if (done) expired.push(done);
    }
    return expired;
  }

  /**
   * Releases local waiters for a request decided by another runner instance (forwarded over the
   * runners' `approval` channel, say). Emits `approval:decided` locally too, unless `emit` is false: with
   * the socket.io Redis adapter the deciding runner's broadcast already reached every runner's sockets.
   */
  notifyDecided(request: ApprovalRequest, options: { emit?: boolean } = {}): void {
    if (request.status === "pending") return;
    if (options.emit === false) this.releaseWaiters(request);
    else this.emitDecided(request);
  }

  private async expire(request: ApprovalRequest): Promise<ApprovalRequest | undefined> {
    const expired = await this.store.transition(request.id, "pending", {
      status: "expired",
      decidedAt: iso(this.clock.now()),
      cause: `expired: no decision before ${request.expiresAt}`,
    });
    if (expired) this.emitDecided(expired);
    return expired;
  }

  private isPastExpiry(request: ApprovalRequest): boolean {
    return this.clock.now() >= Date.parse(request.expiresAt);
  }

  private subscribe(id: string, listener: ApprovalListener): () => void {
    let set = this.waiters.get(id);
    if (set === undefined) this.waiters.set(id, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.waiters.delete(id);
    };
  }

  private emitDecided(request: ApprovalRequest): void {
    this.releaseWaiters(request);
    this.emit(ApprovalEvent.Decided, request);
  }

  private releaseWaiters(request: ApprovalRequest): void {
    for (const waiter of [...(this.waiters.get(request.id) ?? [])]) waiter(request);
  }

  private emit(event: ApprovalEventName, request: ApprovalRequest): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        listener(request);
      } catch {
        // A failing forwarder (e.g. a closed socket) must not break the decision itself.
      }
    }
  }
}

function outcomeOf(request: ApprovalRequest): WaitOutcome {
  switch (request.status) {
    case "approved":
    case "denied":
    case "expired":
    case "consumed":
    case "cancelled":
      return { status: request.status, request };
    case "pending":
      return { status: "timeout" };
  }
}

function fail<K extends string>(
  kind: K,
  message: string,
  request?: ApprovalRequest,
): { ok: false; error: ApprovalError<K> } {
  return { ok: false, error: { kind, message, ...(request === undefined ? {} : { request }) } };
}
