import { readFile } from "node:fs/promises";
import type { ListeningPort } from "@berth/protocol";

/** st column of /proc/net/tcp: 0A is TCP_LISTEN. */
const LISTEN = "0A";

/** Addresses the agent's 127.0.0.1 connection reaches, as /proc spells them (hex, host byte order per word). */
const REACHABLE: Record<string, string> = {
  "0100007F": "127.0.0.1",
  "00000000": "0.0.0.0",
  "00000000000000000000000000000000": "::",
  "00000000000000000000000001000000": "::1",
  // ::ffff:127.0.0.1 and ::ffff:0.0.0.0 (a dual-stack socket bound to a v4 address)
  "0000000000000000FFFF00000100007F": "127.0.0.1",
  "0000000000000000FFFF000000000000": "0.0.0.0",
};

/** Parses one /proc/net/tcp{,6} table into the LISTEN sockets on a reachable address. */
export function parseProcNetTcp(text: string): ListeningPort[] {
  const ports: ListeningPort[] = [];
  for (const line of text.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 4 || fields[3] !== LISTEN) continue;
    const [hexAddress, hexPort] = (fields[1] ?? "").split(":");
    const address = REACHABLE[(hexAddress ?? "").toUpperCase()];
    const port = Number.parseInt(hexPort ?? "", 16);
    if (address && port >= 1 && port <= 65535) ports.push({ port, address });
  }
  return ports;
}

/** What listens in this container (its own network namespace), one entry per port, sorted. */
export async function listListeningPorts(procDir = "/proc/net"): Promise<ListeningPort[]> {
  const tables = await Promise.all(
    ["tcp", "tcp6"].map((name) => readFile(`${procDir}/${name}`, "utf8").catch(() => "")),
  );
  const byPort = new Map<number, ListeningPort>();
  for (const entry of tables.flatMap(parseProcNetTcp)) if (!byPort.has(entry.port)) byPort.set(entry.port, entry);
  return [...byPort.values()].sort((a, b) => a.port - b.port);
}
