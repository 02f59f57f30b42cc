import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeNetns, startNetnsDockerd, stopNetnsDockerd } from "../../../../scripts/lib/netns-dockerd.mjs";
import { SandboxLabel } from "../docker/sandbox-labels";
import { cleanupRunner, docker as localDocker, sh, testRunnerId, tool } from "../testing/docker-test-kit";
import { createMultiHostDriver, ensureImageOnHosts } from "./create-multi-host-driver";
import { dockerClientFor, parseDockerHosts } from "./docker-hosts";
import type { MultiHostSandboxDriver } from "./multi-host-driver";

// A second engine of this test's own: dockerd in a network namespace, reached over TCP with mutual TLS on a veth
// address, as a remote Docker host is. Its own namespace and addresses, so `npm run cluster`'s engine is untouched.
const engine = { netns: "berth-dht", hostAddress: "10.213.91.1", address: "10.213.91.2", dir: fs.mkdtempSync(path.join(os.tmpdir(), "berth-dht-")) };
const IMAGE = "berth-sandbox:latest";

describe("several Docker hosts behind one driver (a second dockerd over TCP + mutual TLS)", () => {
  const runnerId = testRunnerId("hosts");
  let remote: Docker;
  let hostsText: string;
  let driver: MultiHostSandboxDriver;
  const options = { runnerId, image: IMAGE, poolSize: 0, heartbeatIntervalMs: 0 };

  const onRemote = async () =>
    (await remote.listContainers({ filters: { label: [`${SandboxLabel.Runner}=${runnerId}`] } })).map((c) => c.Labels[SandboxLabel.Session]);

  beforeAll(async () => {
    const second = await startNetnsDockerd(engine);
    // "local" is the engine the other Docker tests use (DOCKER_HOST when it names a socket).
    const socket = process.env["DOCKER_HOST"]?.startsWith("unix://") ? process.env["DOCKER_HOST"] : "unix:///var/run/docker.sock";
    hostsText = `local=${socket}?max=1,dh=${second.url}?tls=${second.certDir}&max=1`;
    const hosts = parseDockerHosts(hostsText);
    remote = dockerClientFor(hosts[1]!);
    ({ driver } = createMultiHostDriver(hosts, options));
  }, 120_000);

  afterAll(async () => {
    await driver?.close({ stopSessions: true });
    await cleanupRunner(runnerId);
    if (remote) {
      const left = await remote.listContainers({ all: true, filters: { label: [`${SandboxLabel.Runner}=${runnerId}`] } });
      await Promise.allSettled(left.map((c) => remote.getContainer(c.Id).remove({ force: true })));
    }
    await stopNetnsDockerd(engine);
    removeNetns(engine);
    fs.rmSync(engine.dir, { recursive: true, force: true });
  }, 120_000);

  it("loads the sandbox image onto a host that lacks it, through the engine API", async () => {
    const clients = new Map([
      ["local", localDocker],
      ["dh", remote],
    ]);
    expect(await ensureImageOnHosts(localDocker, clients, IMAGE)).toEqual(["dh"]);
    const [here, there] = await Promise.all([localDocker.getImage(IMAGE).inspect(), remote.getImage(IMAGE).inspect()]);
    expect(there.Id).toBe(here.Id);
    expect(await ensureImageOnHosts(localDocker, clients, IMAGE)).toEqual([]);
    await driver.start();
  }, 180_000);

  it("places sessions on the host with room, runs tools on the remote one, and says when every host is full", async () => {
    await driver.acquire("s-one");
    await driver.acquire("s-two");
    expect([driver.hostName("s-one"), driver.hostName("s-two")]).toEqual(["local", "dh"]);
    expect(await onRemote()).toEqual(["s-two"]);

    expect((await tool(driver, "s-two", "write_file", { path: "where.txt", content: "on dh\n" })).ok).toBe(true);
    expect((await tool(driver, "s-two", "read_file", { path: "where.txt" })).details).toMatchObject({ content: "on dh\n" });
    expect((await sh(driver, "s-two", "id -un && cat where.txt")).stdout).toBe("berth\non dh\n");
    // The same locked-down posture on both hosts.
    expect(driver.posture("s-two")).toEqual(driver.posture("s-one"));
    expect(driver.list().map((s) => s.sessionId).sort()).toEqual(["s-one", "s-two"]);

    await expect(driver.acquire("s-three")).rejects.toThrow("cannot place session s-three: every Docker host is full: local 1/1, dh 1/1");
  }, 120_000);

  it("a new driver adopts every host's sessions where they run, and a released session goes back to its volume's host", async () => {
    const volumes = { one: driver.get("s-one")!.volumeName, two: driver.get("s-two")!.volumeName };
    await driver.close(); // detach only: the containers keep running for the next runner
    ({ driver } = createMultiHostDriver(parseDockerHosts(hostsText), options));
    const report = await driver.reconcile([
      { sessionId: "s-one", volumeName: volumes.one },
      { sessionId: "s-two", volumeName: volumes.two },
    ]);
    expect(report.adopted.sort()).toEqual(["s-one", "s-two"]);
    expect(driver.hostName("s-two")).toBe("dh");
    await driver.start();
    expect((await sh(driver, "s-two", "cat where.txt")).stdout).toBe("on dh\n");

    await driver.release("s-two");
    await driver.close();
    ({ driver } = createMultiHostDriver(parseDockerHosts(hostsText), options));
    await driver.reconcile([
      { sessionId: "s-one", volumeName: volumes.one },
      { sessionId: "s-two", volumeName: volumes.two },
    ]);
    await driver.start();
    await driver.acquire("s-two", { volumeName: volumes.two });
    expect(driver.hostName("s-two")).toBe("dh");
    expect((await sh(driver, "s-two", "cat where.txt")).stdout).toBe("on dh\n");

    await driver.destroy("s-two", { volumeName: volumes.two });
    await driver.destroy("s-one", { volumeName: volumes.one });
    expect(await onRemote()).toEqual([]);
    const { Volumes } = await remote.listVolumes({ filters: { label: [`${SandboxLabel.Runner}=${runnerId}`] } });
    expect(Volumes ?? []).toEqual([]);
  }, 180_000);

  it("another runner's driver adopts a session where it runs, on the remote host too (a failover)", async () => {
    await driver.acquire("s-four");
    await driver.acquire("s-five");
    expect([driver.hostName("s-four"), driver.hostName("s-five")]).toEqual(["local", "dh"]);
    expect((await tool(driver, "s-five", "write_file", { path: "kept.txt", content: "before the failover\n" })).ok).toBe(true);
    const volume = driver.get("s-five")!.volumeName;
    await driver.close(); // the runner dies: its attach streams end, the agents wait on stdin

    const adopter = createMultiHostDriver(parseDockerHosts(hostsText), { ...options, runnerId: testRunnerId("hosts-b") }).driver;
    try {
      expect(await adopter.adopt("s-none", { fromRunnerId: runnerId })).toBe("missing");
      expect(await adopter.adopt("s-five", { fromRunnerId: runnerId, volumeName: volume })).toBe("adopted");
      expect(await adopter.adopt("s-four", { fromRunnerId: runnerId })).toBe("adopted");
      expect([adopter.hostName("s-four"), adopter.hostName("s-five")]).toEqual(["local", "dh"]);
      expect((await sh(adopter, "s-five", "cat kept.txt")).stdout).toBe("before the failover\n");
      await adopter.destroy("s-five");
      await adopter.destroy("s-four");
    } finally {
      await adopter.close({ stopSessions: true });
    }
    expect(await onRemote()).toEqual([]);
    ({ driver } = createMultiHostDriver(parseDockerHosts(hostsText), options));
  }, 180_000);
});
