import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupRunner, dockerPsNames, sh, testRunnerId } from "../testing/docker-test-kit";
import { DockerSandboxDriver } from "./docker-sandbox-driver";
import { containerNameFor } from "./sandbox-labels";

// A failover between two runners on one engine: B attaches to a container A labelled, and A, started again, leaves
// it alone because the database says B holds the session now.
describe("DockerSandboxDriver.adopt (real engine)", () => {
  const runnerA = testRunnerId("adopt-a");
  const runnerB = testRunnerId("adopt-b");
  const drivers: DockerSandboxDriver[] = [];
  const open = (runnerId: string) => {
    const driver = new DockerSandboxDriver({ runnerId, poolSize: 0, heartbeatIntervalMs: 0 });
    drivers.push(driver);
    return driver;
  };

  afterAll(async () => {
    for (const driver of drivers) await driver.close({ stopSessions: true }).catch(() => undefined);
    await cleanupRunner(runnerA);
    await cleanupRunner(runnerB);
  });

  it("attaches to another runner's container, keeps its workspace, and leaves everything else of that runner's alone", async () => {
    const session = `ses_adopt_${randomBytes(4).toString("hex")}`;
    const other = `ses_other_${randomBytes(4).toString("hex")}`;
    const a = open(runnerA);
    await a.start();
    const info = await a.acquire(session);
    await a.acquire(other);
    await sh(a, session, "echo before > /workspace/kept.txt");
    // A dies without stopping anything: its attach streams end, the agents wait on stdin.
    await a.close();

    const b = open(runnerB);
    await b.start();
    expect(await b.adopt(`ses_none_${randomBytes(4).toString("hex")}`, { fromRunnerId: runnerA })).toBe("missing");
    expect(await b.adopt(session, { fromRunnerId: runnerA, volumeName: info.volumeName })).toBe("adopted");
    expect(b.get(session)).toMatchObject({ status: "ready", volumeName: info.volumeName });
    expect((await sh(b, session, "cat /workspace/kept.txt")).stdout).toBe("before\n");
    // Adopting twice is a no-op, and the other session of A's was not touched.
    expect(await b.adopt(session, { fromRunnerId: runnerA })).toBe("adopted");
    expect(b.get(other)).toBeUndefined();
    expect(await dockerPsNames(runnerA)).toEqual([containerNameFor(other), containerNameFor(session)].sort());

    // A again: its reconcile adopts its own session and neither adopts nor reaps the one B holds.
    const again = open(runnerA);
    const report = await again.reconcile([
      { sessionId: other },
      { sessionId: session, volumeName: info.volumeName, elsewhere: true },
    ]);
    expect(report.adopted).toEqual([other]);
    expect(report.reapedContainers).toEqual([]);
    expect(report.reapedVolumes).toEqual([]);
    expect((await sh(b, session, "cat /workspace/kept.txt")).stdout).toBe("before\n");

    // A lets go of a session another runner took (its lease lapsed): the container keeps running, B adopts it.
    await again.detach(other);
    expect(again.get(other)).toBeUndefined();
    await expect(sh(again, other, "true")).rejects.toThrow();
    expect(await b.adopt(other, { fromRunnerId: runnerA })).toBe("adopted");
    expect((await sh(b, other, "echo alive")).stdout).toBe("alive\n");

    // The adopting runner restarts and deletes what it adopted: the labels name A, the call is B's.
    const restarted = await b.restart(session);
    expect(restarted.status).toBe("ready");
    expect((await sh(b, session, "cat /workspace/kept.txt")).stdout).toBe("before\n");
    await b.destroy(session);
    expect(b.get(session)).toBeUndefined();
    expect(await dockerPsNames(runnerA)).toEqual([containerNameFor(other)]);
    await b.destroy(other);
    expect(await dockerPsNames(runnerA)).toEqual([]);
  });
});
