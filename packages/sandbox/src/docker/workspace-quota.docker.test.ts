import { readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupRunner, dockerVolumeNames, sh, testRunnerId, tool } from "../testing/docker-test-kit";
import { DockerSandboxDriver } from "./docker-sandbox-driver";
import { WorkspaceQuota } from "./workspace-quota";

const LIMIT = 64 * 1024 * 1024;

async function mounted(mountPoint: string): Promise<boolean> {
  return (await readFile("/proc/self/mounts", "utf8")).split("\n").some((line) => line.split(" ")[1] === mountPoint);
}

/** Bytes the host really spends on a (sparse) file. */
async function allocated(file: string): Promise<number> {
  return (await stat(file)).blocks * 512;
}

describe("a size limit per workspace (real engine, loop-mounted ext4)", () => {
  const runnerId = testRunnerId("quota");
  const dir = path.join(os.tmpdir(), `berth-quota-${runnerId}`);
  const quota = new WorkspaceQuota({ dir, sizeBytes: LIMIT });
  let driver: DockerSandboxDriver;
  let volumeName: string;
  const warnings: string[] = [];

  const fill = () =>
    sh(driver, "full", "dd if=/dev/zero of=/workspace/big bs=512 oflag=append conv=notrunc 2>/dev/null; true");

  beforeAll(async () => {
    driver = new DockerSandboxDriver({
      runnerId,
      poolSize: 1, // the session gets the warm container: pool workspaces are limited too
      heartbeatIntervalMs: 0,
      workspaceQuota: { dir, sizeBytes: LIMIT },
    });
    driver.on("warning", (w) => warnings.push(w.message));
    await driver.start();
    await driver.whenPoolFull();
    volumeName = (await driver.acquire("full")).volumeName;
  });

  afterAll(async () => {
    await driver?.close({ stopSessions: true });
    await cleanupRunner(runnerId);
    for (const name of await quota.list()) await quota.remove(name);
    await rm(dir, { recursive: true, force: true });
  });

  it("gives the session a workspace of exactly the limit, on its own filesystem", async () => {
    expect(warnings.filter((w) => w.includes("BERTH_WORKSPACE_SIZE"))).toEqual([]);
    const df = await sh(
      driver,
      "full",
      "df -B1 --output=size /workspace | tail -1; stat -c %u /workspace; ls -A /workspace",
    );
    const [size, owner, ...entries] = df.stdout.trim().split("\n");
    expect(Number(size)).toBeLessThanOrEqual(LIMIT);
    expect(Number(size)).toBeGreaterThan(LIMIT * 0.8);
    expect(owner).toBe("1000");
    expect(entries).toEqual([]); // no lost+found
    expect(await mounted(quota.mountPath(volumeName))).toBe(true);
  });

  it("refuses writing past the limit, the host spends at most the limit, and the session works after a delete", async () => {
    expect((await tool(driver, "full", "write_file", { path: "small.txt", content: "hello\n" })).ok).toBe(true);
    const ddResult = await tool(driver, "full", "bash", {
      command: "dd if=/dev/zero of=/workspace/big bs=1M count=100",
    });
    const dd = ddResult.details as { exitCode: number; stderr: string };
    expect(dd.exitCode).not.toBe(0);
    expect(dd.stderr).toContain("No space left on device"); // the shell's own words
    expect(ddResult.trace?.["noSpace"]).toBe("no space left on device (workspace limit 64 MiB)");
    expect(await allocated(quota.imagePath(volumeName))).toBeLessThanOrEqual(LIMIT);

    const write = await tool(driver, "full", "write_file", { path: "more.txt", content: "x".repeat(1024 * 1024) });
    expect(write.ok).toBe(false);
    expect(write.error?.code).toBe("workspace_full");
    expect(write.error?.message).toMatch(/^workspace is full \(limit 64 MiB\): .*ENOSPC/);
    expect(write.output).toMatch(/^workspace is full \(limit 64 MiB\)/);

    // A refused write frees what it had taken: fill up again before each check.
    await fill();
    const edit = await tool(driver, "full", "edit", {
      path: "small.txt",
      old_string: "hello",
      new_string: `hello again ${"z".repeat(8192)}`,
    });
    expect(edit).toMatchObject({ ok: false, error: { code: "workspace_full" } });
    await fill();
    const patch = await tool(driver, "full", "apply_patch", {
      patch: "*** Begin Patch\n*** Add File: patched.txt\n+" + "y".repeat(64 * 1024) + "\n*** End Patch",
    });
    expect(patch).toMatchObject({ ok: false, error: { code: "workspace_full" } });
    // Nothing half-written: no temp files, no new files, small.txt untouched.
    const listing = await sh(driver, "full", "ls -A /workspace; cat /workspace/small.txt");
    expect(listing.stdout).toBe("big\nsmall.txt\nhello\n");

    await sh(driver, "full", "rm /workspace/big && sync -f /workspace");
    const after = await tool(driver, "full", "write_file", { path: "more.txt", content: "back to work\n" });
    expect(after.ok).toBe(true);
    // discard: the blocks of the deleted file go back to the host once the journal commits them.
    await expect.poll(() => allocated(quota.imagePath(volumeName)), { timeout: 10_000 }).toBeLessThan(LIMIT / 2);
  });

  it("keeps the workspace across container recycling and removes image and mount with the session", async () => {
    await driver.restart("full");
    const read = await tool(driver, "full", "read_file", { path: "more.txt" });
    expect(read.output).toContain("back to work");
    expect(read).toMatchObject({ ok: true, details: { content: "back to work\n" } });

    await driver.destroy("full");
    expect(await mounted(quota.mountPath(volumeName))).toBe(false);
    await expect(stat(quota.imagePath(volumeName))).rejects.toMatchObject({ code: "ENOENT" });
    expect(await quota.list()).not.toContain(volumeName);
  });

  it("reaps this runner's leftover workspace images at reconcile, and keeps the warm pool's", async () => {
    await driver.whenPoolFull();
    const poolVolumes = await quota.list();
    expect(poolVolumes).toHaveLength(1);
    await quota.ensure("berth-ws-leftover");
    expect(await mounted(quota.mountPath("berth-ws-leftover"))).toBe(true);
    const report = await driver.reconcile([]);
    expect(report.reapedVolumes).toContain("berth-ws-leftover");
    expect(await mounted(quota.mountPath("berth-ws-leftover"))).toBe(false);
    // What is left is the warm pool's (refilled if reconcile recycled its container), each image behind a live volume.
    await driver.whenPoolFull();
    const left = await quota.list();
    expect(left).toHaveLength(1);
    expect(await dockerVolumeNames(runnerId)).toEqual(left);
    expect(await mounted(quota.mountPath(left[0] ?? ""))).toBe(true);
  });
});
