import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { EGRESS_NETWORK } from "./egress-network";
import { formatBytes } from "./workspace-quota";

const firewallModule = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../../scripts/lib/egress-firewall.mjs",
);

describe("egress network and firewall", () => {
  it("name the same bridge and subnet (the firewall matches a bridge the driver creates)", async () => {
    const firewall = (await import(pathToFileURL(firewallModule).href)) as {
      EGRESS_BRIDGE: string;
      EGRESS_SUBNET: string;
    };
    expect(firewall.EGRESS_BRIDGE).toBe(EGRESS_NETWORK.bridge);
    expect(firewall.EGRESS_SUBNET).toBe(EGRESS_NETWORK.subnet);
  });

  it("rejects every private, loopback, link-local, CGNAT and multicast range, and nothing public", async () => {
    const firewall = (await import(pathToFileURL(firewallModule).href)) as { BLOCKED_V4: string[] };
    for (const range of [
      "10.0.0.0/8",
      "172.16.0.0/12",
      "192.168.0.0/16",
      "169.254.0.0/16",
      "100.64.0.0/10",
      "127.0.0.0/8",
      "224.0.0.0/4",
    ])
      expect(firewall.BLOCKED_V4).toContain(range);
    const first = (range: string) => Number(range.split(".")[0]);
    for (const publicFirstOctet of [1, 8, 93, 151, 185])
      expect(firewall.BLOCKED_V4.map(first)).not.toContain(publicFirstOctet);
  });
});

describe("egress firewall rules", () => {
  type Firewall = {
    egressRules(nameservers: string[]): { v4Forward: string[][]; v4Input: string[][] };
    hostNameservers(files: string[]): string[];
  };
  const load = async () => (await import(pathToFileURL(firewallModule).href)) as Firewall;

  it("let DNS through to the host's resolvers only, before anything is rejected", async () => {
    const { egressRules } = await load();
    const rules = egressRules(["10.255.255.53"]);
    for (const chain of [rules.v4Forward, rules.v4Input]) {
      const firstReject = chain.findIndex((rule) => rule.includes("REJECT"));
      const dns = chain.filter((rule) => rule.includes("10.255.255.53/32"));
      expect(dns.map((rule) => rule.join(" "))).toEqual([
        "-d 10.255.255.53/32 -p udp --dport 53 -j RETURN",
        "-d 10.255.255.53/32 -p tcp --dport 53 -j RETURN",
      ]);
      expect(chain.indexOf(dns[1] ?? [])).toBeLessThan(firstReject);
    }
    expect(egressRules([]).v4Input.map((rule) => rule.join(" "))).toEqual([
      "-m conntrack --ctstate ESTABLISHED,RELATED -j RETURN",
      "-j REJECT",
    ]);
  });

  it("read the resolvers from resolv.conf, leaving out loopback ones Docker does not use", async () => {
    const { hostNameservers } = await load();
    const dir = mkdtempSync(path.join(os.tmpdir(), "berth-resolv-"));
    const file = path.join(dir, "resolv.conf");
    writeFileSync(
      file,
      "# comment\nnameserver 127.0.0.53\nnameserver 10.0.0.2\nsearch example\nnameserver 192.168.1.1\n",
    );
    expect(hostNameservers([path.join(dir, "missing"), file])).toEqual(["10.0.0.2", "192.168.1.1"]);
    rmSync(dir, { recursive: true });
  });
});

describe("formatBytes", () => {
  it("names a limit the way a person reads it", () => {
    expect(formatBytes(10 * 1024 ** 3)).toBe("10 GiB");
    expect(formatBytes(64 * 1024 ** 2)).toBe("64 MiB");
    expect(formatBytes(1536 * 1024 ** 2)).toBe("1.5 GiB");
  });
});
