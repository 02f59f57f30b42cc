import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestRunner, type TestRunner } from "../testing/runner-test-kit";

type Result = {
  ok: boolean;
  output: string;
  error?: { code: string; message: string };
  details?: Record<string, unknown>;
  runId?: string;
};

let kit: TestRunner;
const runnerId = `wsize-${process.pid}`;

beforeAll(async () => {
  kit = await startTestRunner({ runnerId, workspaceSize: "64MiB" });
});
afterAll(async () => kit?.close());

const images = () =>
  fs.readdirSync(path.join(kit.dataDir, "workspaces", runnerId)).filter((name) => name.endsWith(".img"));

describe("BERTH_WORKSPACE_SIZE through the runner (real engine)", () => {
  it("limits each session's workspace, says which limit a refused write met, and removes the image with the session", async () => {
    const session = await kit.createSession();
    const df = await kit.tool<Result>(session, "bash", { command: "df -B1 --output=size /workspace | tail -1" });
    const size = Number(String(df.body.details?.["stdout"]).trim());
    expect(size).toBeLessThanOrEqual(64 * 1024 * 1024);
    expect(size).toBeGreaterThan(48 * 1024 * 1024);
    expect(images()).toHaveLength(1);

    const fill = await kit.tool<Result>(session, "bash", { command: "dd if=/dev/zero of=big bs=512 2>&1 | head -1" });
    expect(String(fill.body.details?.["stdout"])).toContain("No space left on device");
    const write = await kit.tool<Result>(session, "write_file", { path: "notes.md", content: "n".repeat(64 * 1024) });
    expect(write.status).toBe(200);
    expect(write.body).toMatchObject({ ok: false, error: { code: "workspace_full" } });
    expect(write.body.error?.message).toMatch(/^workspace is full \(limit 64 MiB\): /);

    expect((await kit.api("DELETE", `/api/sessions/${session}`)).status).toBeLessThan(300);
    expect(images()).toEqual([]);
  });
});
