import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, createRepositories, type Repositories } from "@berth/db";
import type { TestRunner } from "../testing/runner-test-kit";
import { startTwoRunners, type TwoRunners } from "../testing/two-runners";
import { setSessionOwner } from "../testing/set-session-owner";
import { removeByRunner } from "../testing/child-cluster";
import { TcpRelay } from "../testing/tcp-relay";
import { until } from "../testing/until";

let two: TwoRunners;
let a: TestRunner;
let b: TestRunner;
let repos: Repositories;
let scratch: string;
let sessionId: string;
const relay = new TcpRelay();
const suffix = `${process.pid}-${Math.floor(Math.random() * 1e6)}`;
const runnerIds = { a: `la-${suffix}`, b: `lb-${suffix}` };


beforeAll(async () => {
  await relay.listen();
  // A answers to the relay's address, as to its BERTH_RUNNER_URL (B sends it as Host).
  two = await startTwoRunners({ runnerIds, envA: { BERTH_ALLOWED_HOSTS: `127.0.0.1:${relay.port}` } });
  ({ a, b } = two);
  relay.target = a.runner.port;
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "berth-link-test-"));
  repos = createRepositories(await createDatabase({ dataDir: scratch, databaseUrl: two.databaseUrl }));
  sessionId = await a.createSession({ autonomy: "trusted" });
  await setSessionOwner(repos, sessionId, { id: runnerIds.a, url: `http://127.0.0.1:${relay.port}` });
}, 180_000);

afterAll(async () => {
  await repos?.close();
  await two?.close();
  await relay.close();
  removeByRunner([], [runnerIds.a, runnerIds.b]);
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
}, 120_000);

describe("tool calls through runner B reach the session's owner A over the peer link", () => {
  it("a write_file and a read_file through B go over the link, run on A, and A authenticates the caller", async () => {
    // The first call opens the link (and goes the HTTP way meanwhile).
    expect((await b.tool(sessionId, "write_file", { path: "linked.txt", content: "over the link" })).status).toBe(200);
    await until(() => relay.links > 0, "B's link to A");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = relay.httpToolCalls;
    const read = await b.tool<{ ok: boolean; output: string; runId?: string }>(sessionId, "read_file", { path: "linked.txt" });
    expect(read.status).toBe(200);
    expect(read.body.output).toContain("over the link");
    const bash = await b.tool<{ ok: boolean; output: string }>(sessionId, "bash", { command: "echo $((6 * 7)) > six.txt && cat six.txt" });
    expect(bash.body.output).toContain("42");
    expect(relay.httpToolCalls).toBe(before);
    // Ran on A: A holds the container, B never attached it, and A's workspace has the file.
    expect(a.runner.driver.get(sessionId)?.status).toBe("ready");
    expect(b.runner.driver.get(sessionId)).toBeUndefined();
    expect((await a.tool<{ output: string }>(sessionId, "read_file", { path: "six.txt" })).body.output).toContain("42");
    // A authenticated the token itself: a bad one through B is A's 401.
    const refused = await b.tool<{ error: { code: string; message: string } }>(sessionId, "read_file", { path: "six.txt" }, { token: "not-a-token" });
    expect(refused).toEqual({ status: 401, body: { error: { code: "unauthorized", message: "Invalid, expired or revoked credential" } } });
    expect(relay.httpToolCalls).toBe(before);
  });

  it("goes the HTTP way when the link is down and cannot be made again", async () => {
    relay.refuseLinks = true;
    relay.cut();
    // B hears the link close (a call sent on it before then is a 503 "cannot be reached", the client's to retry).
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = relay.httpToolCalls;
    const read = await b.tool<{ output: string }>(sessionId, "read_file", { path: "linked.txt" });
    expect(read.status).toBe(200);
    expect(read.body.output).toContain("over the link");
    expect(relay.httpToolCalls).toBe(before + 1);
    // And again a second later, once B has tried to make the link again and could not.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await b.tool(sessionId, "read_file", { path: "linked.txt" })).status).toBe(200);
    expect(relay.httpToolCalls).toBe(before + 2);
  });
});
