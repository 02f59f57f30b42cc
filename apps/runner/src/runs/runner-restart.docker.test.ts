import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitWithAck, startTestRunner, type TestRunner } from "../testing/runner-test-kit";

type Result = { ok: boolean; runId?: string; details?: Record<string, unknown> };
let kit: TestRunner;
let runnerId: string;

beforeAll(async () => {
  runnerId = `restart-${process.pid}`;
  kit = await startTestRunner({ runnerId });
});
afterAll(async () => kit?.close());

const ours = () =>
  execFileSync("docker", ["ps", "-a", "--filter", `label=berth.runner=${runnerId}`, "--format", "{{.Label \"berth.session\"}}"], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);

describe("runs across a runner restart", () => {
  it("streams live output with offsets, replays from an offset with no gap or duplicate", async () => {
    const session = await kit.createSession();
    const started = await kit.tool<Result>(session, "bash", { action: "start", command: "seq 1 40 | while read i; do echo tick-$i; sleep 0.05; done" });
    const socket = await kit.socket();
    let text = "";
    let expected = 0;
    socket.on("process:output", (event: { offset: number; data: string }) => {
      expect(event.offset).toBe(expected);
      expected += Buffer.byteLength(event.data);
      text += event.data;
    });
    await emitWithAck(socket, "process:subscribe", { sessionId: session, processId: started.body.details?.processId, offset: 0 });
    await new Promise((r) => setTimeout(r, 3500));
    expect(text).toContain("tick-40\n");
    // A client that reconnects from the middle gets exactly the rest.
    const again = await kit.socket();
    let rest = "";
    again.on("process:output", (event: { data: string }) => (rest += event.data));
    await emitWithAck(again, "process:subscribe", { sessionId: session, processId: started.body.details?.processId, offset: 100 });
    await new Promise((r) => setTimeout(r, 200));
    expect(rest).toBe(Buffer.from(text).subarray(100).toString());
  });

  it("marks an in-flight run interrupted, keeps its logs, and leaves only live sessions' containers", async () => {
    const live = await kit.createSession();
    const doomed = await kit.createSession();
    await kit.api("DELETE", `/api/sessions/${doomed}`);
    const started = await kit.tool<Result>(live, "bash", { action: "start", command: "echo before-restart; sleep 60" });
    for (let i = 0; i < 50; i++) {
      const shown = await kit.api<{ content: string }>("GET", `/api/runs/${started.body.runId}/logs?stream=stdout`);
      if (shown.body.content.includes("before-restart")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await kit.restart();
    const run = await kit.api<{ run: { status: string; outcome: string; cause: string } }>("GET", `/api/runs/${started.body.runId}`);
    expect(run.body.run).toMatchObject({ status: "interrupted", outcome: "interrupted" });
    const logs = await kit.api<{ content: string }>("GET", `/api/runs/${started.body.runId}/logs?stream=stdout`);
    expect(logs.body.content).toContain("before-restart");
    expect(ours().sort()).toEqual(expect.arrayContaining([live]));
    expect(ours()).not.toContain(doomed);
    // The adopted session still answers.
    const after = await kit.tool<Result>(live, "bash", { command: "echo still-here" });
    expect(String(after.body.details?.stdout)).toBe("still-here\n");
  });

  it("hides another developer's session (404) and refuses calls without a token", async () => {
    const user = await kit.api<{ id: string }>("POST", "/api/users", { name: "dev2", role: "developer" });
    const token = await kit.api<{ token: string }>("POST", "/api/tokens", { userId: user.body.id });
    const mine = await kit.createSession();
    expect((await kit.api("GET", `/api/sessions/${mine}`, undefined, token.body.token)).status).toBe(404);
    expect((await kit.tool(mine, "read_file", { path: "x" }, { token: token.body.token })).status).toBe(404);
    const anonymous = await fetch(`${kit.url}/api/sessions`);
    expect(anonymous.status).toBe(401);
  });
});
