import { execFile } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupRunner, docker, sh, testRunnerId } from "../testing/docker-test-kit";
import { DockerSandboxDriver } from "./docker-sandbox-driver";
import { EGRESS_NETWORK } from "./egress-network";

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const firewallCli = path.join(repoRoot, "scripts/egress-firewall.mjs");

function firewall(action: "install" | "remove") {
  return run(process.execPath, [firewallCli, action]);
}

async function iptablesRules(): Promise<string> {
  const v4 = await run("iptables", ["-S"]);
  const v6 = await run("ip6tables", ["-S"]);
  return `${v4.stdout}${v6.stdout}`;
}

/**
 * A TCP connect from inside the sandbox to a listener on the host, printed as `connected` or the error code.
 * Only this machine's own addresses are dialled: nothing here leaves the host.
 */
function connectScript(host: string, port: number): string {
  const js = `const s=require("net").connect({host:"${host}",port:${port}});const t=setTimeout(()=>{console.log("TIMEOUT");process.exit(0)},4000);s.on("connect",()=>{console.log("connected");process.exit(0)});s.on("error",e=>{clearTimeout(t);console.log(e.code);process.exit(0)})`;
  return `node -e '${js}'`;
}

describe("egress sessions reach the internet, not the host (real engine, real iptables)", () => {
  const runnerId = testRunnerId("egress");
  let driver: DockerSandboxDriver;
  let server: net.Server;
  let port: number;

  beforeAll(async () => {
    driver = new DockerSandboxDriver({ runnerId, poolSize: 0, heartbeatIntervalMs: 0 });
    await driver.start();
    await driver.acquire("egress", { egress: true });
    await driver.acquire("offline");
    // The listener sits on the egress bridge's gateway: the host's address as a sandbox on that bridge sees it.
    server = net.createServer((socket) => {
      socket.on("error", () => undefined); // the probe exits as soon as it is connected
      socket.end("host service\n");
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, EGRESS_NETWORK.gateway, resolve);
    });
    port = (server.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    // Setup's state again, whatever a failed test left.
    await firewall("install");
    server?.close();
    await driver?.close({ stopSessions: true });
    await cleanupRunner(runnerId);
  });

  it("puts egress sessions on Berth's own bridge, with containers kept apart", async () => {
    const network = await docker.getNetwork(EGRESS_NETWORK.name).inspect();
    expect(network.IPAM?.Config?.[0]?.Subnet).toBe(EGRESS_NETWORK.subnet);
    expect(network.Options?.["com.docker.network.bridge.name"]).toBe(EGRESS_NETWORK.bridge);
    expect(network.Options?.["com.docker.network.bridge.enable_icc"]).toBe("false");
    expect(driver.posture("egress").network).toBe(EGRESS_NETWORK.name);
  });

  it("refuses a connect to a host listener at once with the rules, and lets it through without them", async () => {
    await firewall("install");
    const started = performance.now();
    const blocked = await sh(driver, "egress", connectScript(EGRESS_NETWORK.gateway, port));
    expect(blocked.stdout.trim()).toBe("ECONNREFUSED");
    expect(performance.now() - started).toBeLessThan(4_000); // REJECT, not a silent drop: no wait for a timeout
    // Loopback inside the sandbox is its own; the host's other bridge (docker0) is the host too.
    const docker0 = await sh(driver, "egress", connectScript("172.17.0.1", port));
    expect(docker0.stdout.trim()).toBe("ECONNREFUSED");

    await firewall("remove");
    const open = await sh(driver, "egress", connectScript(EGRESS_NETWORK.gateway, port));
    expect(open.stdout.trim()).toBe("connected");

    await firewall("install");
    const again = await sh(driver, "egress", connectScript(EGRESS_NETWORK.gateway, port));
    expect(again.stdout.trim()).toBe("ECONNREFUSED");
  });

  it("leaves a --network none session without any route, as before", async () => {
    const r = await sh(driver, "offline", connectScript(EGRESS_NETWORK.gateway, port));
    expect(r.stdout.trim()).toBe("ENETUNREACH");
  });

  it("installs idempotently and removes only its own rules", async () => {
    await firewall("install");
    const once = await iptablesRules();
    await firewall("install");
    expect(await iptablesRules()).toBe(once);
    expect(once.match(/-j BERTH-EGRESS-INPUT/g)).toHaveLength(1);
    expect(once).toMatch(/-A BERTH-EGRESS -d 169\.254\.0\.0\/16 -j REJECT/);
    expect(once).toMatch(/-A BERTH-EGRESS -d 100\.64\.0\.0\/10 -j REJECT/);

    await firewall("remove");
    const removed = await iptablesRules();
    expect(removed).not.toMatch(/BERTH-EGRESS/);
    // What Docker put there stays.
    expect(removed).toMatch(/-N DOCKER-USER/);
    await firewall("install");
  });
});
