import { describe, expect, it } from "vitest";
import { ApprovalService, InMemoryApprovalStore } from "@berth/tools";
import type { ApprovalRequest } from "@berth/protocol";
import { LocalClusterBus } from "./cluster-bus";
import { APPROVAL_CHANNEL, shareApprovalDecisions } from "./share-approval-decisions";

// Two runners' approval services over one store (the shared database) and one bus (Redis in a deployment).
async function twoRunners() {
  const bus = new LocalClusterBus();
  const store = new InMemoryApprovalStore();
  const log: string[] = [];
  const a = new ApprovalService({ store });
  const b = new ApprovalService({ store });
  await shareApprovalDecisions(bus, a, (l) => log.push(l));
  await shareApprovalDecisions(bus, b, (l) => log.push(l));
  const events = { a: [] as ApprovalRequest[], b: [] as ApprovalRequest[] };
  a.on("approval:decided", (r) => events.a.push(r));
  b.on("approval:decided", (r) => events.b.push(r));
  const park = (service: ApprovalService) =>
    service.park({ sessionId: "s1", tool: "bash", actionClass: "system_modify", text: "sudo x", sha256: "a".repeat(64), requestedBy: "agent" });
  return { bus, a, b, log, events, park };
}

describe("shareApprovalDecisions", () => {
  it("a decision on B releases the caller waiting on A at once, and neither runner emits the socket event twice", async () => {
    const { a, b, events, park } = await twoRunners();
    const request = await park(a);
    const waiting = a.waitForDecision(request.id, 60_000);
    const decided = await b.decide(request.id, { decision: "approve", sha256: request.sha256, decidedBy: "op" });
    expect(decided.ok).toBe(true);
    const outcome = await waiting;
    expect(outcome.status).toBe("approved");
    // B emitted it (its sockets, and through the adapter everyone's); A released its waiter without re-emitting.
    expect(events.b.map((r) => r.status)).toEqual(["approved"]);
    expect(events.a).toEqual([]);
  });

  it("a cancel on B releases A's waiter with cancelled", async () => {
    const { a, b, park } = await twoRunners();
    const request = await park(a);
    const waiting = a.waitForDecision(request.id, 60_000);
    await b.cancel(request.id, { sha256: request.sha256, cancelledBy: "agent" });
    expect((await waiting).status).toBe("cancelled");
  });

  it("ignores a message that is not an approval request, naming what is wrong", async () => {
    const { bus, a, log, park } = await twoRunners();
    const request = await park(a);
    const waiting = a.waitForDecision(request.id, 200);
    await bus.publish(APPROVAL_CHANNEL, JSON.stringify({ ...request, status: "approved", sha256: 7 }));
    await bus.publish(APPROVAL_CHANNEL, "{not json");
    expect((await waiting).status).toBe("timeout");
    expect(log.some((l) => /approval: a message ignored: .*sha256/.test(l))).toBe(true);
    expect(log.some((l) => /not JSON \(9 bytes\)/.test(l))).toBe(true);
  });
});
