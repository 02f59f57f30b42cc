import { describe, expect, it, vi } from "vitest";
import type { ApprovalRequest } from "@berth/protocol";
import { ApprovalRequestSchema } from "@berth/protocol";
import { ApprovalService } from "./approval-service";
import type { ParkInput } from "./approval-service";
import { InMemoryApprovalStore } from "./approval-store";
import { renderCallText } from "./render-call-text";

const callInput = (command: string, sessionId = "s1"): ParkInput => ({
  sessionId,
  tool: "bash",
  actionClass: "system_modify",
  requestedBy: "agent:claude",
  ...renderCallText("bash", { command }),
});

const fakeClock = (start = Date.parse("2026-01-01T00:00:00Z")) => {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
};

describe("ApprovalService: parking", () => {
  it("parks a call as a pending request that expires in 15 minutes", async () => {
    const clock = fakeClock();
    const service = new ApprovalService({ clock });
    const request = await service.park(callInput("sudo apt-get update"));
    expect(ApprovalRequestSchema.parse(request)).toEqual(request);
    expect(request).toMatchObject({ status: "pending", sessionId: "s1", tool: "bash", actionClass: "system_modify" });
    expect(request.id).toMatch(/^apr_[0-9a-f]{32}$/);
    expect(Date.parse(request.expiresAt) - Date.parse(request.createdAt)).toBe(15 * 60_000);
  });

  it("the same call parks once; changed arguments make a new request with a different sha256", async () => {
    const service = new ApprovalService();
    const a = await service.park(callInput("sudo x"));
    const again = await service.park(callInput("sudo x"));
    const changed = await service.park(callInput("sudo y"));
    expect(again.id).toBe(a.id);
    expect(changed.id).not.toBe(a.id);
    expect(changed.sha256).not.toBe(a.sha256);
    expect(await service.listPending("s1")).toHaveLength(2);
  });

  it("emits approval:created and approval:decided for the runner to forward", async () => {
    const service = new ApprovalService();
    const events: string[] = [];
    service.on("approval:created", (r) => events.push(`created ${r.status}`));
    const off = service.on("approval:decided", (r) => events.push(`decided ${r.status}`));
    const request = await service.park(callInput("sudo x"));
    await service.decide(request.id, { decision: "approve", sha256: request.sha256, decidedBy: "op" });
    off();
    const other = await service.park(callInput("sudo y"));
    await service.decide(other.id, { decision: "deny", sha256: other.sha256, decidedBy: "op" });
    expect(events).toEqual(["created pending", "decided approved", "created pending"]);
  });
});

describe("ApprovalService: decisions", () => {
  it("records an approval with who, when and the note", async () => {
    const service = new ApprovalService();
    const request = await service.park(callInput("sudo x"));
    const result = await service.decide(request.id, {
      decision: "approve",
      sha256: request.sha256,
      decidedBy: "alice",
      note: "ok once",
    });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.request).toMatchObject({ status: "approved", decidedBy: "alice", note: "ok once" });
    expect(result.ok && result.request.decidedAt).toBeTruthy();
  });

  it("refuses a wrong hash and leaves the request pending", async () => {
    const service = new ApprovalService();
    const request = await service.park(callInput("sudo x"));
    const wrong = await service.decide(request.id, { decision: "approve", sha256: "0".repeat(64), decidedBy: "op" });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(wrong.error.kind).toBe("hash_mismatch");
    expect((await service.get(request.id))?.status).toBe("pending");
  });

  it("refuses a second decision", async () => {
    const service = new ApprovalService();
    const request = await service.park(callInput("sudo x"));
    expect((await service.decide(request.id, { decision: "deny", sha256: request.sha256, decidedBy: "a" })).ok).toBe(
      true,
    );
    const second = await service.decide(request.id, { decision: "approve", sha256: request.sha256, decidedBy: "b" });
    expect(second.ok).toBe(false);
    if (!second.ok) expect(second.error.kind).toBe("already_decided");
    expect((await service.get(request.id))?.status).toBe("denied");
  });

  it("two concurrent decisions: exactly one wins", async () => {
    const service = new ApprovalService();
    const request = await service.park(callInput("sudo x"));
    const results = await Promise.all([
      service.decide(request.id, { decision: "approve", sha256: request.sha256, decidedBy: "a" }),
      service.decide(request.id, { decision: "deny", sha256: request.sha256, decidedBy: "b" }),
    ]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it("an unknown id is not_found", async () => {
    const service = new ApprovalService();
    const result = await service.decide("apr_missing", {
      decision: "approve",
      sha256: "0".repeat(64),
      decidedBy: "op",
    });
    expect(!result.ok && result.error.kind).toBe("not_found");
  });

  it("expires after 15 minutes with the cause recorded", async () => {
    const clock = fakeClock();
    const service = new ApprovalService({ clock });
    const decided: ApprovalRequest[] = [];
    service.on("approval:decided", (r) => decided.push(r));
    const request = await service.park(callInput("sudo x"));
    clock.advance(15 * 60_000);
    const late = await service.decide(request.id, { decision: "approve", sha256: request.sha256, decidedBy: "op" });
    expect(!late.ok && late.error.kind).toBe("expired");
    const stored = await service.get(request.id);
    expect(stored).toMatchObject({ status: "expired" });
    expect(stored?.cause).toMatch(/no decision before/);
    expect(decided.map((r) => r.status)).toEqual(["expired"]);
  });

  it("expireDue sweeps pending requests past their time", async () => {
    const clock = fakeClock();
    const service = new ApprovalService({ clock });
    const old = await service.park(callInput("sudo a"));
    clock.advance(10 * 60_000);
    const fresh = await service.park(callInput("sudo b"));
    clock.advance(6 * 60_000);
    const expired = await service.expireDue();
    expect(expired.map((r) => r.id)).toEqual([old.id]);
    expect((await service.get(fresh.id))?.status).toBe("pending");
  });

  it("re-parking an expired call makes a new request", async () => {
    const clock = fakeClock();
    const service = new ApprovalService({ clock });
    const first = await service.park(callInput("sudo x"));
    clock.advance(16 * 60_000);
    const second = await service.park(callInput("sudo x"));
    expect(second.id).not.toBe(first.id);
    expect((await service.get(first.id))?.status).toBe("expired");
  });
});

describe("ApprovalService: single-use consumption", () => {
  it("an approval runs its exact call once", async () => {
    const service = new ApprovalService();
    const request = await service.park(callInput("sudo x"));
    await service.decide(request.id, { decision: "approve", sha256: request.sha256, decidedBy: "op" });
    const changed = await service.consume(request.id, callInput("sudo y").sha256);
    expect(!changed.ok && changed.error.kind).toBe("hash_mismatch");
    const first = await service.consume(request.id, request.sha256);
    expect(first.ok && first.request.status).toBe("consumed");
    const second = await service.consume(request.id, request.sha256);
    expect(!second.ok && second.error.kind).toBe("already_consumed");
  });

  it("a denied or pending request cannot be consumed", async () => {
    const service = new ApprovalService();
    const pending = await service.park(callInput("sudo x"));
    expect(await service.consume(pending.id, pending.sha256)).toMatchObject({
      ok: false,
      error: { kind: "not_approved" },
    });
  });

  it("consumeApproved finds the approval for a call that comes back", async () => {
    const service = new ApprovalService();
    const request = await service.park(callInput("sudo x"));
    await service.decide(request.id, { decision: "approve", sha256: request.sha256, decidedBy: "op" });
    expect((await service.consumeApproved("s1", request.sha256))?.id).toBe(request.id);
    expect(await service.consumeApproved("s1", request.sha256)).toBeUndefined();
    expect(await service.consumeApproved("s2", request.sha256)).toBeUndefined();
  });
});

describe("ApprovalService: waiting", () => {
  it("releases a parked caller within 100 ms of the decision", async () => {
    const service = new ApprovalService();
    const request = await service.park(callInput("sudo x"));
    let releasedAt = 0;
    const waiting = service.waitForDecision(request.id, 10_000).then((outcome) => {
      releasedAt = performance.now();
      return outcome;
    });
    await new Promise((r) => setTimeout(r, 50));
    const decidedAt = performance.now();
    await service.decide(request.id, { decision: "approve", sha256: request.sha256, decidedBy: "op" });
    const outcome = await waiting;
    expect(outcome.status).toBe("approved");
    expect(releasedAt - decidedAt).toBeLessThan(100);
  });

  it("releases two parked calls independently", async () => {
    const service = new ApprovalService();
    const a = await service.park(callInput("sudo a"));
    const b = await service.park(callInput("sudo b"));
    const settled: string[] = [];
    const waitA = service.waitForDecision(a.id, 10_000).then((o) => settled.push(`a:${o.status}`));
    const waitB = service.waitForDecision(b.id, 10_000).then((o) => settled.push(`b:${o.status}`));
    await service.decide(b.id, { decision: "deny", sha256: b.sha256, decidedBy: "op" });
    await waitB;
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toEqual(["b:denied"]);
    await service.decide(a.id, { decision: "approve", sha256: a.sha256, decidedBy: "op" });
    await waitA;
    expect(settled).toEqual(["b:denied", "a:approved"]);
  });

  it("resolves at once for a request already decided, and reports unknown ids", async () => {
    const service = new ApprovalService();
    const request = await service.park(callInput("sudo x"));
    await service.decide(request.id, { decision: "deny", sha256: request.sha256, decidedBy: "op" });
    expect((await service.waitForDecision(request.id, 10_000)).status).toBe("denied");
    expect((await service.waitForDecision("apr_missing", 10_000)).status).toBe("not_found");
  });

  it("times out, leaving the request pending", async () => {
    const service = new ApprovalService();
    const request = await service.park(callInput("sudo x"));
    expect((await service.waitForDecision(request.id, 20)).status).toBe("timeout");
    expect((await service.get(request.id))?.status).toBe("pending");
  });

  it("stops waiting on abort", async () => {
    const service = new ApprovalService();
    const request = await service.park(callInput("sudo x"));
    const controller = new AbortController();
    const waiting = service.waitForDecision(request.id, 10_000, controller.signal);
    controller.abort();
    expect((await waiting).status).toBe("aborted");
  });

  it("a waiter sees the expiry when the request runs out of time", async () => {
    const service = new ApprovalService({ ttlMs: 30 });
    const request = await service.park(callInput("sudo x"));
    const outcome = await service.waitForDecision(request.id, 5_000);
    expect(outcome.status).toBe("expired");
    if (outcome.status === "expired") expect(outcome.request.cause).toMatch(/no decision before/);
  });

  it("notifyDecided releases waiters for a decision made by another runner", async () => {
    const store = new InMemoryApprovalStore();
    const here = new ApprovalService({ store });
    const there = new ApprovalService({ store });
    const request = await here.park(callInput("sudo x"));
    const waiting = here.waitForDecision(request.id, 10_000);
    const spy = vi.fn();
    here.on("approval:decided", spy);
    const decided = await there.decide(request.id, { decision: "approve", sha256: request.sha256, decidedBy: "op" });
    if (decided.ok) here.notifyDecided(decided.request);
    expect((await waiting).status).toBe("approved");
    expect(spy).toHaveBeenCalledOnce();
  });
});
