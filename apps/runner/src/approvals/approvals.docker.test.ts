import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitWithAck, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

type Parked = { status: "parked"; approvalId: string; text: string; sha256: string };
type Result = { ok: boolean; output: string; details?: Record<string, unknown>; error?: { code: string }; runId?: string; receiptId?: string };

let kit: TestRunner;
let session: string;

beforeAll(async () => {
  kit = await startTestRunner();
  session = await kit.createSession({ autonomy: "default" });
});
afterAll(async () => kit?.close());

const decide = (id: string, decision: "approve" | "deny", sha256: string) => kit.api("POST", `/api/approvals/${id}`, { decision, sha256 });

describe("admission and hash-bound approvals through the runner", () => {
  it("denies git push --force at every autonomy and allows &&-chained recognised commands", async () => {
    const denied = await kit.tool<Result>(session, "bash", { command: "git push --force origin main" });
    expect(denied.body).toMatchObject({ ok: false, error: { code: "denied" } });
    const allowed = await kit.tool<Result>(session, "bash", { command: "ls && pwd" });
    expect(allowed.body.ok).toBe(true);
    const chained = await kit.tool<Parked>(session, "bash", { command: "ls && rm -rf /tmp/x" });
    expect(chained.status).toBe(202);
  });

  it("parks sudo at default, refuses a wrong hash and a second decision, and runs after approval", async () => {
    const parked = await kit.tool<Parked>(session, "bash", { command: "sudo true; echo after-approval" });
    expect(parked.status).toBe(202);
    expect(parked.body.text).toContain("sudo true");
    const wrong = await decide(parked.body.approvalId, "approve", "0".repeat(64));
    expect(wrong.status).toBe(409);
    const ok = await decide(parked.body.approvalId, "approve", parked.body.sha256);
    expect(ok.status).toBe(200);
    const again = await decide(parked.body.approvalId, "deny", parked.body.sha256);
    expect(again.status).toBe(409);
    const ran = await kit.tool<Result>(session, "bash", { command: "sudo true; echo after-approval" });
    expect(ran.status).toBe(200);
    expect(String(ran.body.details?.stdout)).toContain("after-approval");
    // Single-use: the same call asks again.
    const next = await kit.tool<Parked>(session, "bash", { command: "sudo true; echo after-approval" });
    expect(next.status).toBe(202);
    expect(next.body.approvalId).not.toBe(parked.body.approvalId);
  });

  it("changed arguments create a new request; two parked calls are released independently", async () => {
    const a = await kit.tool<Parked>(session, "bash", { command: "$(echo echo) $(whoami) a" });
    const b = await kit.tool<Parked>(session, "bash", { command: "$(echo echo) $(whoami) b" });
    expect(a.body.sha256).not.toBe(b.body.sha256);
    const waitingA = kit.tool<Result>(session, "bash", { command: "$(echo echo) $(whoami) a" }, { wait: 20_000 });
    const waitingB = kit.tool<Result | Parked>(session, "bash", { command: "$(echo echo) $(whoami) b" }, { wait: 1_500 });
    await new Promise((r) => setTimeout(r, 300));
    const decidedAt = Date.now();
    await decide(a.body.approvalId, "approve", a.body.sha256);
    const releasedA = await waitingA;
    const latency = Date.now() - decidedAt;
    expect(releasedA.status).toBe(200);
    expect(String((releasedA.body as Result).details?.stdout)).toContain("berth a");
    expect((await waitingB).status).toBe(202);
    // The released call ran inside its tool call; the decision itself came back well before it finished.
    expect(latency).toBeLessThan(5_000);
  });

  it("records the approval in the run's receipt", async () => {
    const parked = await kit.tool<Parked>(session, "bash", { command: "`echo echo` `date` receipt" });
    await decide(parked.body.approvalId, "approve", parked.body.sha256);
    const ran = await kit.tool<Result>(session, "bash", { command: "`echo echo` `date` receipt" });
    const receipt = await kit.api<{ body: { approvals: { id: string; sha256: string; approvedBy: string }[] } }>("GET", `/api/receipts/${ran.body.receiptId}`);
    expect(receipt.body.body.approvals).toEqual([expect.objectContaining({ id: parked.body.approvalId, sha256: parked.body.sha256, approvedBy: "admin" })]);
  });

  it("pushes approval events to a subscribed operator socket", async () => {
    const socket = await kit.socket();
    await emitWithAck(socket, "approvals:subscribe", {});
    const created = new Promise<{ id: string }>((resolve) => socket.once("approval:created", resolve));
    const parked = await kit.tool<Parked>(session, "bash", { command: "sudo ls /root" });
    expect((await created).id).toBe(parked.body.approvalId);
    const decided = new Promise<{ id: string; status: string; decidedBy: string }>((resolve) => socket.once("approval:decided", resolve));
    await decide(parked.body.approvalId, "deny", parked.body.sha256);
    expect(await decided).toMatchObject({ id: parked.body.approvalId, status: "denied", decidedBy: "admin" });
  });

  it("does not apply the agent loop guard to API callers", async () => {
    for (let i = 0; i < 3; i++) expect((await kit.tool<Result>(session, "bash", { command: "ls" })).body.ok).toBe(true);
  });
});
