import type { ApprovalRequest, ApprovalStatus } from "@berth/protocol";

/**
 * Persistence for approval requests. Async because the runner's implementation is Prisma-backed;
 * `transition` is a compare-and-set so a decision or a consumption happens once even across runners
 * (Prisma: `updateMany({ where: { id, status: from } })` and check the count).
 */
export interface ApprovalStore {
  insert(request: ApprovalRequest): Promise<void>;
  get(id: string): Promise<ApprovalRequest | undefined>;
  /** The pending request of this session with this sha256, if any (an identical call re-parked). */
  findPending(sessionId: string, sha256: string): Promise<ApprovalRequest | undefined>;
  /** The approved, not yet consumed request of this session with this sha256, if any. */
  findApproved(sessionId: string, sha256: string): Promise<ApprovalRequest | undefined>;
  listPending(sessionId?: string): Promise<ApprovalRequest[]>;
  /** Applies `patch` only while the status is `from`; returns the updated request, else undefined. */
  transition(id: string, from: ApprovalStatus, patch: Partial<ApprovalRequest>): Promise<ApprovalRequest | undefined>;
}

/** Keeps requests in a Map; for tests and single-process runs. */
export class InMemoryApprovalStore implements ApprovalStore {
  private readonly requests = new Map<string, ApprovalRequest>();

  async insert(request: ApprovalRequest): Promise<void> {
    if (this.requests.has(request.id)) throw new Error(`Approval request already exists: ${request.id}`);
    this.requests.set(request.id, { ...request });
  }

  async get(id: string): Promise<ApprovalRequest | undefined> {
    const found = this.requests.get(id);
    return found === undefined ? undefined : { ...found };
  }

  async findPending(sessionId: string, sha256: string): Promise<ApprovalRequest | undefined> {
    return this.find((r) => r.status === "pending" && r.sessionId === sessionId && r.sha256 === sha256);
  }

  async findApproved(sessionId: string, sha256: string): Promise<ApprovalRequest | undefined> {
    return this.find((r) => r.status === "approved" && r.sessionId === sessionId && r.sha256 === sha256);
  }

  async listPending(sessionId?: string): Promise<ApprovalRequest[]> {
    return [...this.requests.values()]
      .filter((r) => r.status === "pending" && (sessionId === undefined || r.sessionId === sessionId))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((r) => ({ ...r }));
  }

  async transition(
    id: string,
    from: ApprovalStatus,
    patch: Partial<ApprovalRequest>,
  ): Promise<ApprovalRequest | undefined> {
    const current = this.requests.get(id);
    if (current === undefined || current.status !== from) return undefined;
    const next = { ...current, ...patch, id: current.id };
    this.requests.set(id, next);
    return { ...next };
  }

  private find(predicate: (r: ApprovalRequest) => boolean): ApprovalRequest | undefined {
    for (const r of this.requests.values()) if (predicate(r)) return { ...r };
    return undefined;
  }
}
