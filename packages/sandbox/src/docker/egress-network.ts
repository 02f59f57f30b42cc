import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type Docker from "dockerode";

const run = promisify(execFile);

/**
 * The Berth-owned bridge egress sessions join. A fixed bridge name and subnet, so the firewall setup installs
 * (scripts/lib/egress-firewall.mjs, which keeps the same two values) can match it before it exists. Containers on
 * it cannot talk to each other (icc off); what they may reach is that firewall's business.
 */
export const EGRESS_NETWORK = {
  name: "berth-egress",
  bridge: "berth-egress",
  subnet: "10.213.87.0/24",
  gateway: "10.213.87.1",
} as const;

function statusCode(error: unknown): number | undefined {
  return typeof error === "object" && error !== null && "statusCode" in error && typeof error.statusCode === "number"
    ? error.statusCode
    : undefined;
}

/** Creates the network when missing; shared by every runner on the engine, so never removed by one. */
export async function ensureEgressNetwork(docker: Docker): Promise<void> {
  const found = await docker
    .getNetwork(EGRESS_NETWORK.name)
    .inspect()
    .then(
      () => true,
      () => false,
    );
  if (found) return;
  try {
    await docker.createNetwork({
      Name: EGRESS_NETWORK.name,
      Driver: "bridge",
      CheckDuplicate: true,
      IPAM: { Driver: "default", Config: [{ Subnet: EGRESS_NETWORK.subnet, Gateway: EGRESS_NETWORK.gateway }] },
      Options: {
        "com.docker.network.bridge.name": EGRESS_NETWORK.bridge,
        "com.docker.network.bridge.enable_icc": "false",
        "com.docker.network.bridge.enable_ip_masquerade": "true",
      },
      Labels: { "berth.managed": "true" },
    });
  } catch (error) {
    // Another runner made it between our inspect and create.
    if (statusCode(error) !== 409) throw error;
  }
}

/**
 * Null when the firewall's jumps are in place on this host, else what to do. Only meaningful when the engine is
 * local; the driver warns with it at start, since without it an egress session reaches the host.
 */
export async function egressFirewallProblem(): Promise<string | null> {
  const check = (chain: string, target: string) =>
    run("iptables", ["-C", chain, "-i", EGRESS_NETWORK.bridge, "-j", target]).then(
      () => true,
      () => false,
    );
  const installed = (await check("DOCKER-USER", "BERTH-EGRESS")) && (await check("INPUT", "BERTH-EGRESS-INPUT"));
  return installed
    ? null
    : `the egress firewall is not installed: egress sessions can reach this host and private networks; run \`node scripts/egress-firewall.mjs install\` as root (setup does)`;
}
