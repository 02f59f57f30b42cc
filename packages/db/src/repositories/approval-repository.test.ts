import type { ApprovalRequest } from "@berth/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Repositories } from "./create-repositories";
import { openTestRepositories } from "./testing/open-test-repositories";

let repos: Repositories;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ repos, close } = await openTestRepositories());
  await repos.users.create({ id: "user_a", name: "ada", role: "developer" });
  await repos.users.create({ id: "user_b", name: "bob", role: "developer" });
  await repos.sessions.create({ id: "ses_a", name: "a", ownerId: "user_a", autonomy: "default", network: "none", env: {} });
  await repos.sessions.create({ id: "ses_b", name: "b", ownerId: "user_b", autonomy: "default", network: "none", env: {} });
}, 60_000);
afterAll(() => close());

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
    await repos.approvals.insert(request("appr_1", "ses_a", "2026-01-01T00:00:00.000Z"));
    await repos.approvals.insert(request("appr_2", "ses_b", "2026-01-01T00:01:00.000Z"));
    expect(await repos.approvals.get("appr_1")).toEqual(request("appr_1", "ses_a", "2026-01-01T00:00:00.000Z"));
    expect((await repos.approvals.findPending("ses_a", SHA))?.id).toBe("appr_1");
    expect((await repos.approvals.listPending()).map((a) => a.id)).toEqual(["appr_1", "appr_2"]);
    expect((await repos.approvals.listPending("ses_b")).map((a) => a.id)).toEqual(["appr_2"]);
    expect((await repos.approvals.list(undefined, 10, "user_b")).map((a) => a.id)).toEqual(["appr_2"]);
    expect(await repos.approvals.countPending()).toBe(2);
  });

  it("decides once: a second transition from pending changes nothing", async () => {
    const decided = await repos.approvals.transition("appr_1", "pending", { status: "approved", decidedBy: "op", decidedAt: "2026-01-01T00:02:00.000Z", note: "ok" });
    expect(decided).toMatchObject({ status: "approved", decidedBy: "op", note: "ok", decidedAt: "2026-01-01T00:02:00.000Z" });
    expect(await repos.approvals.transition("appr_1", "pending", { status: "denied", decidedBy: "other" })).toBeUndefined();
    expect((await repos.approvals.findApproved("ses_a", SHA))?.decidedBy).toBe("op");
    expect((await repos.approvals.list("approved")).map((a) => a.id)).toEqual(["appr_1"]);
    expect(await repos.approvals.get("appr_none")).toBeUndefined();
  });
});
