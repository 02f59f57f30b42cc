import type { ApprovalRequest } from "@berth/protocol";
import { describe, expect, it } from "vitest";
import { seedSessions, useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories(async (repos) => {
  await seedSessions(repos, { ses_a: "user_a", ses_b: "user_b" });
});

const SHA = "a".repeat(64);
const request = (id: string, sessionId: string, createdAt: string): ApprovalRequest => ({
  id,
  sessionId,
  tool: "bash",
  actionClass: "execute",
  text: "bash exec rm -rf build",
  sha256: SHA,
  status: "pending",
  requestedBy: "ada",
  createdAt,
  expiresAt: "2030-01-01T00:00:00.000Z",
});

describe("ApprovalRepository", () => {
  it("stores a request and reads it back as the protocol's ApprovalRequest", async () => {
    await t.repos.approvals.insert(request("appr_1", "ses_a", "2026-01-01T00:00:00.000Z"));
    await t.repos.approvals.insert(request("appr_2", "ses_b", "2026-01-01T00:01:00.000Z"));
    expect(await t.repos.approvals.get("appr_1")).toEqual(request("appr_1", "ses_a", "2026-01-01T00:00:00.000Z"));
    expect((await t.repos.approvals.findPending("ses_a", SHA))?.id).toBe("appr_1");
    expect((await t.repos.approvals.listPending()).map((a) => a.id)).toEqual(["appr_1", "appr_2"]);
    expect((await t.repos.approvals.listPending("ses_b")).map((a) => a.id)).toEqual(["appr_2"]);
    expect((await t.repos.approvals.list(undefined, 10, "user_b")).map((a) => a.id)).toEqual(["appr_2"]);
    expect(await t.repos.approvals.countPending()).toBe(2);
  });

  it("decides once: a second transition from pending changes nothing", async () => {
    const decided = await t.repos.approvals.transition("appr_1", "pending", {
      status: "approved",
      decidedBy: "op",
      decidedAt: "2026-01-01T00:02:00.000Z",
      note: "ok",
    });
    expect(decided).toMatchObject({
      status: "approved",
      decidedBy: "op",
      note: "ok",
      decidedAt: "2026-01-01T00:02:00.000Z",
    });
    expect(
      await t.repos.approvals.transition("appr_1", "pending", { status: "denied", decidedBy: "other" }),
    ).toBeUndefined();
    expect((await t.repos.approvals.findApproved("ses_a", SHA))?.decidedBy).toBe("op");
    expect((await t.repos.approvals.list("approved")).map((a) => a.id)).toEqual(["appr_1"]);
    expect(await t.repos.approvals.get("appr_none")).toBeUndefined();
  });
});
