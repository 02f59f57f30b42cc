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

describe("formatBytes", () => {
  it("names a limit the way a person reads it", () => {
    expect(formatBytes(10 * 1024 ** 3)).toBe("10 GiB");
    expect(formatBytes(64 * 1024 ** 2)).toBe("64 MiB");
    expect(formatBytes(1536 * 1024 ** 2)).toBe("1.5 GiB");
  });
});
