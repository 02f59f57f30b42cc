import type { ApprovalRequest, ApprovalStatus } from "@berth/protocol";
import { ApprovalRequestSchema } from "@berth/protocol";
import type { Database } from "../create-database";
import type { ApprovalModel } from "../generated/sqlite/models";

type ApprovalRow = ApprovalModel;

function toRequest(row: ApprovalRow): ApprovalRequest {
  return ApprovalRequestSchema.parse({
    id: row.id,
    sessionId: row.sessionId,
    tool: row.tool,
    actionClass: row.actionClass,
    text: row.text,
    sha256: row.sha256,
    status: row.status,
    requestedBy: row.requestedBy,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    ...(row.decidedBy ? { decidedBy: row.decidedBy } : {}),
    ...(row.decidedAt ? { decidedAt: row.decidedAt.toISOString() } : {}),
    ...(row.note ? { note: row.note } : {}),
    ...(row.cause ? { cause: row.cause } : {}),
    ...(row.consumedAt ? { consumedAt: row.consumedAt.toISOString() } : {}),
    ...(row.scriptPath && row.scriptSha256 ? { script: { path: row.scriptPath, sha256: row.scriptSha256 } } : {}),
  });
}

const date = (iso: string | undefined) => (iso === undefined ? undefined : new Date(iso));

/**
 * Approval requests (the ApprovalStore of @berth/tools, structurally); `transition` is a compare-and-set, so a
 * decision happens once even with several runners on one database.
 */
export class ApprovalRepository {
  constructor(private readonly db: Database) {}

  async insert(request: ApprovalRequest): Promise<void> {
    await this.db.approval.create({
      data: {
        id: request.id,
        sessionId: request.sessionId,
        tool: request.tool,
        actionClass: request.actionClass,
        text: request.text,
        sha256: request.sha256,
        status: request.status,
        requestedBy: request.requestedBy,
        createdAt: new Date(request.createdAt),
        expiresAt: new Date(request.expiresAt),
        ...(request.script ? { scriptPath: request.script.path, scriptSha256: request.script.sha256 } : {}),
      },
    });
  }

  async get(id: string): Promise<ApprovalRequest | undefined> {
    const row = await this.db.approval.findUnique({ where: { id } });
    return row ? toRequest(row) : undefined;
  }

  async findPending(sessionId: string, sha256: string): Promise<ApprovalRequest | undefined> {
    const row = await this.db.approval.findFirst({ where: { sessionId, sha256, status: "pending" }, orderBy: { createdAt: "desc" } });
    return row ? toRequest(row) : undefined;
  }

  async findApproved(sessionId: string, sha256: string): Promise<ApprovalRequest | undefined> {
    const row = await this.db.approval.findFirst({ where: { sessionId, sha256, status: "approved" }, orderBy: { decidedAt: "asc" } });
    return row ? toRequest(row) : undefined;
  }

  async listPending(sessionId?: string): Promise<ApprovalRequest[]> {
    const rows = await this.db.approval.findMany({ where: { status: "pending", ...(sessionId ? { sessionId } : {}) }, orderBy: { createdAt: "asc" } });
    return rows.map(toRequest);
  }

  /** Newest first; `ownerId` keeps only the approvals of that user's sessions. */
  async list(status?: ApprovalStatus, limit = 200, ownerId?: string): Promise<ApprovalRequest[]> {
    const rows = await this.db.approval.findMany({
      where: { ...(status ? { status } : {}), ...(ownerId ? { session: { ownerId } } : {}) },
      orderBy: { createdAt: "desc" },
      take: limit,
    });
    return rows.map(toRequest);
  }

  countPending(): Promise<number> {
    return this.db.approval.count({ where: { status: "pending" } });
  }

  async transition(id: string, from: ApprovalStatus, patch: Partial<ApprovalRequest>): Promise<ApprovalRequest | undefined> {
    const { count } = await this.db.approval.updateMany({
      where: { id, status: from },
      data: {
        ...(patch.status ? { status: patch.status } : {}),
        ...(patch.decidedBy ? { decidedBy: patch.decidedBy } : {}),
        ...(patch.decidedAt ? { decidedAt: date(patch.decidedAt) } : {}),
        ...(patch.note !== undefined ? { note: patch.note } : {}),
        ...(patch.cause ? { cause: patch.cause } : {}),
        ...(patch.consumedAt ? { consumedAt: date(patch.consumedAt) } : {}),
      },
    });
    return count ? this.get(id) : undefined;
  }
}
