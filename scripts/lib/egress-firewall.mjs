// Firewall for sessions with network egress: they get the internet, not the host. Plain Node, no dependencies
// (setup runs it before `npm ci`); `node scripts/egress-firewall.mjs install|remove|status` runs it by hand.
//
// Sessions with egress join the Berth-owned bridge `berth-egress` (created by the sandbox driver:
// packages/sandbox/src/docker/egress-network.ts keeps the same name and subnet). Its traffic meets two chains:
// - BERTH-EGRESS-INPUT (from INPUT): everything addressed to the host itself — the bridge gateway and every
//   address of every host interface, loopback included — is rejected unless it answers a connection the host made.
// - BERTH-EGRESS (from DOCKER-USER, which Docker jumps to first in FORWARD and never flushes): forwarded traffic
//   to private, loopback, link-local, CGNAT, multicast and reserved ranges is rejected; public destinations and
//   established replies pass on to Docker's own rules (which masquerade them).
// One exception: DNS (port 53) to the host's own resolvers. Docker's embedded DNS (127.0.0.11 in the container)
// forwards a session's queries from inside its network namespace to the nameservers of the host's resolv.conf, which
// are often private (10.255.255.53 on the machine this was written on): without it an egress session has no names.
// Setup reads them at install time; after a resolver change, run setup (or install) again.
// IPv6: the network has none, so everything from the bridge is rejected (fc00::/7, fe80::/10 and the rest).
// REJECT rather than DROP, so a blocked connect fails at once instead of after a TCP timeout.
// Idempotent: each run flushes and refills our chains and adds a jump only when `-C` does not find it.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

export const EGRESS_BRIDGE = "berth-egress";
export const EGRESS_SUBNET = "10.213.87.0/24";
const CHAIN = "BERTH-EGRESS";
const INPUT_CHAIN = "BERTH-EGRESS-INPUT";

/** Destinations a sandbox never reaches through the bridge (IPv4). */
export const BLOCKED_V4 = [
  "0.0.0.0/8", // "this network"
  "10.0.0.0/8",
  "100.64.0.0/10", // CGNAT
  "127.0.0.0/8",
  "169.254.0.0/16", // link-local, cloud metadata
  "172.16.0.0/12", // Docker's default bridges among them
  "192.168.0.0/16",
  "192.0.0.0/24", // IETF protocol assignments
  "198.18.0.0/15", // benchmarking
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, broadcast
];

function tables(binary, args) {
  const result = spawnSync(binary, args, { encoding: "utf8" });
  if (result.error) return { ok: false, out: "", err: result.error.message };
  return { ok: result.status === 0, out: result.stdout, err: result.stderr.trim() };
}

function must(binary, args) {
  const result = tables(binary, args);
  if (!result.ok) throw new Error(`${binary} ${args.join(" ")} failed: ${result.err}`);
  return result;
}

/** Creates the chain or, when it exists, empties it. */
function freshChain(binary, chain) {
  if (!tables(binary, ["-N", chain]).ok) must(binary, ["-F", chain]);
}

function ensureJump(binary, from, chain) {
  const rule = ["-i", EGRESS_BRIDGE, "-j", chain];
  if (!tables(binary, ["-C", from, ...rule]).ok) must(binary, ["-I", from, "1", ...rule]);
}

function deleteJump(binary, from, chain) {
  const rule = ["-i", EGRESS_BRIDGE, "-j", chain];
  while (tables(binary, ["-C", from, ...rule]).ok) must(binary, ["-D", from, ...rule]);
}

function deleteChain(binary, chain) {
  if (tables(binary, ["-F", chain]).ok) must(binary, ["-X", chain]);
}

/**
 * The IPv4 nameservers Docker's embedded DNS forwards to: the host's resolv.conf (systemd-resolved's upstream list
 * when that is in use), loopback ones left out (Docker does not use them).
 */
export function hostNameservers(files = ["/run/systemd/resolve/resolv.conf", "/etc/resolv.conf"]) {
  for (const file of files) {
    let text;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    return [...text.matchAll(/^\s*nameserver\s+(\d{1,3}(?:\.\d{1,3}){3})\s*$/gm)]
      .map((m) => m[1])
      .filter((ip) => !ip.startsWith("127."));
  }
  return [];
}

/** The rules of each chain, as iptables arguments after `-A <chain>`. */
export function egressRules(nameservers = hostNameservers()) {
  const established = ["-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "RETURN"];
  const dns = nameservers.flatMap((ip) =>
    ["udp", "tcp"].map((proto) => ["-d", `${ip}/32`, "-p", proto, "--dport", "53", "-j", "RETURN"]),
  );
  return {
    v4Forward: [established, ...dns, ...BLOCKED_V4.map((range) => ["-d", range, "-j", "REJECT"]), ["-j", "RETURN"]],
    v4Input: [established, ...dns, ["-j", "REJECT"]],
    v6: [established, ["-j", "REJECT"]],
  };
}

export function hasIptables() {
  return tables("iptables", ["--version"]).ok;
}

/** Installs (or refreshes) the rules. Needs root and iptables. */
export function installEgressFirewall() {
  const rules = egressRules();
  // Docker makes DOCKER-USER when it starts; make it first if it has not, Docker keeps what it finds.
  if (!tables("iptables", ["-S", "DOCKER-USER"]).ok) {
    must("iptables", ["-N", "DOCKER-USER"]);
    must("iptables", ["-A", "DOCKER-USER", "-j", "RETURN"]);
    if (!tables("iptables", ["-C", "FORWARD", "-j", "DOCKER-USER"]).ok)
      must("iptables", ["-I", "FORWARD", "1", "-j", "DOCKER-USER"]);
  }
  freshChain("iptables", CHAIN);
  for (const rule of rules.v4Forward) must("iptables", ["-A", CHAIN, ...rule]);
  freshChain("iptables", INPUT_CHAIN);
  for (const rule of rules.v4Input) must("iptables", ["-A", INPUT_CHAIN, ...rule]);
  ensureJump("iptables", "DOCKER-USER", CHAIN);
  ensureJump("iptables", "INPUT", INPUT_CHAIN);
  if (tables("ip6tables", ["--version"]).ok) {
    freshChain("ip6tables", CHAIN);
    for (const rule of rules.v6) must("ip6tables", ["-A", CHAIN, ...rule]);
    ensureJump("ip6tables", "INPUT", CHAIN);
    ensureJump("ip6tables", "FORWARD", CHAIN);
  }
}

/** Removes every rule and chain installEgressFirewall made; nothing else. */
export function removeEgressFirewall() {
  deleteJump("iptables", "DOCKER-USER", CHAIN);
  deleteJump("iptables", "INPUT", INPUT_CHAIN);
  deleteChain("iptables", CHAIN);
  deleteChain("iptables", INPUT_CHAIN);
  if (tables("ip6tables", ["--version"]).ok) {
    deleteJump("ip6tables", "INPUT", CHAIN);
    deleteJump("ip6tables", "FORWARD", CHAIN);
    deleteChain("ip6tables", CHAIN);
  }
}

/** Whether both IPv4 jumps are in place (the chains behind them are refilled by install). */
export function egressFirewallInstalled() {
  return (
    tables("iptables", ["-C", "DOCKER-USER", "-i", EGRESS_BRIDGE, "-j", CHAIN]).ok &&
    tables("iptables", ["-C", "INPUT", "-i", EGRESS_BRIDGE, "-j", INPUT_CHAIN]).ok
  );
}
