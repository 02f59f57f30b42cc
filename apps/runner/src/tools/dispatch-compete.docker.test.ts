import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRunner, type TestRunner } from "../testing/runner-test-kit";

type Parked = { status: "parked"; approvalId: string; text: string; sha256: string };
type Result = { ok: boolean; output: string; details?: Record<string, unknown>; runId?: string; receiptId?: string; error?: { code: string } };
type Check = { tool: string; ok: boolean; runId: string | null; receiptId: string | null };
type Plan = { topology: string; tree: string; winner: string | null; applied: boolean; candidates: { id: string; ok: boolean; runId: string | null; commit: string | null; checks: Check[] }[] };
type Receipt = { body: { run: { tool: string }; approvals: { id: string; sha256: string }[]; plan?: Plan } };

let kit: TestRunner;

beforeAll(async () => {
  kit = await startTestRunner();
});
afterAll(async () => kit?.close());

const LIB = "module.exports = (a, b) => a - b;\n";
const TEST = 'const add = require("./lib");\nif (add(2, 3) !== 5) { console.error(`add(2, 3) is ${add(2, 3)}`); process.exit(1); }\nconsole.log("ok");\n';
/** A candidate: an apply_patch that rewrites lib.js's body to `body`. */
const candidate = (id: string, body: string) => ({
  id,
  tool: "apply_patch",
  args: { patch: ["*** Begin Patch", "*** Update File: lib.js", "@@", "-module.exports = (a, b) => a - b;", `+module.exports = (a, b) => ${body};`, "*** End Patch"].join("\n") },
});
const check = { tool: "bash", args: { command: "node test.js" } };
const compete = (extra: Record<string, unknown> = {}) => ({
  topology: "compete",
  tasks: [candidate("times", "a * b"), candidate("plus", "a + b"), candidate("plus-one", "a + b + 1")],
  checks: [check],
  ...extra,
});

async function workspace(session: string, git: boolean): Promise<void> {
  for (const [path, content] of [["lib.js", LIB], ["test.js", TEST]]) expect((await kit.tool<Result>(session, "write_file", { path, content })).body.ok).toBe(true);
  if (git) {
    const init = await kit.tool<Result>(session, "bash", { command: "git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init && echo done" });
    expect(init.body.output).toContain("done");
  }
}
const read = async (session: string, path: string) => (await kit.tool<Result>(session, "read_file", { path })).body.details?.content;
const sh = async (session: string, command: string) => ((await kit.tool<Result>(session, "bash", { command })).body.details?.stdout as string).trim();

describe("dispatch compete", () => {
  it("three candidate patches, only one passing the check: one approval of the plan, exactly that one applied, the receipt names the winner and every check", async () => {
    const session = await kit.createSession({ autonomy: "trusted" });
    await workspace(session, true);

    // The plan text is deterministic for the same arguments on an unchanged tree, and binds the tree.
    const first = await kit.tool<Parked>(session, "dispatch", compete());
    expect(first.status).toBe(202);
    const again = await kit.tool<Parked>(session, "dispatch", compete());
    expect(again.body.sha256).toBe(first.body.sha256);
    const lines = first.body.text.split("\n");
    expect(lines[0]).toBe("dispatch plan: topology=compete tasks=3 checks=1 apply=winner");
    expect(lines.slice(1, 4).map((l) => l.split(" ").slice(0, 2).join(" "))).toEqual(["1. id=times", "2. id=plus", "3. id=plus-one"]);
    expect(lines[4]).toMatch(/^check 1\. bash args_sha256=[0-9a-f]{64} \{"command":"node test.js"\}$/);
    expect(lines[5]).toMatch(/^tree git HEAD=[0-9a-f]{40} dirty=0 sha256=[0-9a-f]{64}$/);

    await kit.api("POST", `/api/approvals/${first.body.approvalId}`, { decision: "approve", sha256: first.body.sha256 });
    const ran = await kit.tool<Result>(session, "dispatch", compete());
    expect(ran.status).toBe(200);
    expect(ran.body.ok).toBe(true);
    expect(ran.body.output.split("\n")[0]).toBe("dispatch compete: winner plus (1 of 3 passed every check); applied plus to /workspace: lib.js (modified)");

    // Exactly the winner's change is in the workspace; nothing else moved.
    expect(await read(session, "lib.js")).toBe("module.exports = (a, b) => a + b;\n");
    expect(await sh(session, "git status --porcelain")).toBe("M lib.js");
    expect(await sh(session, "node test.js")).toBe("ok");

    // One approval covered it all: nothing else was asked.
    const pending = await kit.api<{ approvals: { id: string }[] }>("GET", "/api/approvals?status=pending");
    expect(pending.body.approvals.filter((a) => a.id !== first.body.approvalId && a.id !== again.body.approvalId)).toEqual([]);

    // The plan's receipt names the winner and every check, and the approval it ran under.
    const runId = ran.body.runId!;
    const receipt = (await kit.api<Receipt>("GET", `/api/receipts/${ran.body.receiptId}`)).body;
    expect(receipt.body.run.tool).toBe("dispatch");
    expect(receipt.body.approvals.map((a) => a.id)).toEqual([first.body.approvalId]);
    const plan = receipt.body.plan!;
    expect(plan).toMatchObject({ topology: "compete", winner: "plus", applied: true, tree: lines[5]!.slice("tree ".length) });
    expect(plan.candidates.map((c) => [c.id, c.ok, c.checks.map((k) => k.ok)])).toEqual([
      ["times", true, [false]],
      ["plus", true, [true]],
      ["plus-one", true, [false]],
    ]);
    expect((await kit.api<{ valid: boolean }>("POST", "/api/receipts/verify", { receipt })).body.valid).toBe(true);
    // Each candidate and each check is a run with a receipt of its own, under the plan's approval.
    for (const c of plan.candidates) {
      const checkReceipt = (await kit.api<Receipt>("GET", `/api/receipts/${c.checks[0]!.receiptId}`)).body;
      expect(checkReceipt.body.run.tool).toBe("bash");
      expect(checkReceipt.body.approvals[0]?.id).toBe(first.body.approvalId);
      const run = (await kit.api<{ run: { tool: string; receiptId: string } }>("GET", `/api/runs/${c.runId}`)).body.run;
      expect(run.tool).toBe("apply_patch");
      const candidateReceipt = (await kit.api<Receipt>("GET", `/api/receipts/${run.receiptId}`)).body;
      expect(candidateReceipt.body.approvals[0]?.id).toBe(first.body.approvalId);
    }

    // Losers are kept for inspection, on their branches and in their trees, until cleared.
    expect(await sh(session, `git branch --list 'berth/compete/${runId}/*' | wc -l`)).toBe("3");
    expect(await sh(session, `cat /tmp/berth-compete/${runId}/times/lib.js`)).toBe("module.exports = (a, b) => a * b;");
    // The tree changed (lib.js): the same plan is another text to approve now.
    expect((await kit.tool<Parked>(session, "dispatch", compete())).body.sha256).not.toBe(first.body.sha256);
    const cleared = await kit.tool<Result>(session, "dispatch", { op: "clear", runId });
    expect(cleared.body.output).toBe(`dispatch clear ${runId}: removed 3 tree(s) under /tmp/berth-compete/${runId} and 3 branch(es)`);
    expect(await sh(session, `git branch --list 'berth/*' | wc -l; ls /tmp/berth-compete`)).toBe("0");
  });

  it("apply-winner refuses by name a workspace that moved, and applies once it is back; a review whose gate fails changes nothing", async () => {
    const session = await kit.createSession({ autonomy: "yolo" });
    await workspace(session, false);
    const held = await kit.tool<Result>(session, "dispatch", compete({ apply: false }));
    expect(held.body.output.split("\n")[0]).toBe(`dispatch compete: winner plus (1 of 3 passed every check); not applied (apply=false): dispatch {"op":"apply-winner","runId":"${held.body.runId}"} applies it`);
    expect(held.body.output).toContain("(copies, branches berth/compete/");
    expect(await read(session, "lib.js")).toBe(LIB);

    await kit.tool(session, "write_file", { path: "lib.js", content: "module.exports = (a, b) => b - a;\n" });
    const moved = await kit.tool<Result>(session, "dispatch", { op: "apply-winner", runId: held.body.runId });
    expect(moved.body).toMatchObject({ ok: false, error: { code: "conflict" } });
    expect(moved.body.output).toBe(`dispatch apply-winner ${held.body.runId}: apply-winner refused: the workspace moved since the plan began: lib.js changed there and in candidate plus`);
    await kit.tool(session, "write_file", { path: "lib.js", content: LIB });
    const applied = await kit.tool<Result>(session, "dispatch", { op: "apply-winner", runId: held.body.runId });
    expect(applied.body.output).toBe(`dispatch apply-winner ${held.body.runId}: applied plus to /workspace: lib.js (modified)`);
    expect(await read(session, "lib.js")).toBe("module.exports = (a, b) => a + b;\n");

    // review: the builder's change is kept only when the gate passes; otherwise it stays in its tree.
    const review = await kit.tool<Result>(session, "dispatch", { topology: "review", tasks: [candidate("fix", "a + b")], checks: [{ tool: "bash", args: { command: "node test.js && grep -q 'a - b' lib.js" } }] });
    expect(review.body.ok).toBe(false);
    expect(review.body.output.split("\n")[0]).toBe("dispatch review: no winner; the review gate failed: the workspace is unchanged");
    expect(await read(session, "lib.js")).toBe("module.exports = (a, b) => a + b;\n");
  });

  it("a plan approved while its caller waited refuses to start from a tree that changed after it parked", async () => {
    const session = await kit.createSession({ autonomy: "trusted" });
    await workspace(session, true);
    const waiting = kit.tool<Result>(session, "dispatch", compete(), { wait: 60_000 });
    let parked: { id: string; sha256: string; text: string } | undefined;
    while (!parked) {
      const pending = await kit.api<{ approvals: { id: string; sessionId: string; sha256: string; text: string }[] }>("GET", "/api/approvals?status=pending");
      parked = pending.body.approvals.find((a) => a.sessionId === session);
      if (!parked) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await kit.tool(session, "write_file", { path: "notes.txt", content: "written while the plan waited\n" });
    await kit.api("POST", `/api/approvals/${parked.id}`, { decision: "approve", sha256: parked.sha256 });
    const ran = await waiting;
    expect(ran.body).toMatchObject({ ok: false, error: { code: "changed_since_approval" } });
    const bound = parked.text.split("\n").at(-1)!.slice("tree ".length);
    expect(ran.body.output).toMatch(new RegExp(`^dispatch compete: changed since approval: the workspace is now git HEAD=[0-9a-f]{40} dirty=1 sha256=[0-9a-f]{64}; the approval bound ${bound.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
    expect(await read(session, "lib.js")).toBe(LIB);
    expect(await sh(session, "git branch --list 'berth/*' | wc -l")).toBe("0");
  });

  it("background: true returns the plan's run id at once; monitor collect is the barrier that waits for it", async () => {
    const session = await kit.createSession({ autonomy: "yolo" });
    await workspace(session, true);
    const started = await kit.tool<Result>(session, "dispatch", compete({ background: true }));
    const runId = started.body.runId!;
    expect(started.body.output).toBe(`dispatch compete: started in the background as run ${runId}; monitor {"mode":"collect","runIds":["${runId}"]} waits for it`);
    expect(started.body.details).toMatchObject({ runIds: [runId] });
    const collected = await kit.tool<Result>(session, "monitor", { mode: "collect", runIds: [runId], timeoutMs: 120_000 });
    expect(collected.body.details).toMatchObject({ ended: true, runs: [{ id: runId, tool: "dispatch", status: "finished", outcome: "succeeded" }] });
    expect(await read(session, "lib.js")).toBe("module.exports = (a, b) => a + b;\n");
    const receipt = await kit.tool<Result>(session, "monitor", { mode: "receipt", runId });
    expect((receipt.body.details?.receipt as Receipt).body.plan?.winner).toBe("plus");
  });
});
