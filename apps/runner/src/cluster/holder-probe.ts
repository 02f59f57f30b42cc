import net from "node:net";
import type { Repositories } from "@berth/db";

/** How long a connection to a lease holder may take before it counts as gone. */
const CONNECT_TIMEOUT_MS = 1_000;

/**
 * Whether the runner that held a lapsed lease is still there: its port accepts a TCP connection. The kernel
 * completes that handshake whatever the process's event loop is doing, so a runner that is alive but too busy
 * to renew in time (100 MB streaming to 50 clients on two cores did that) still answers, while a killed one is
 * refused at once and a partitioned one times out. Failover uses it to leave a busy holder its sessions for a
 * grace period instead of splitting a session between two runners.
 */
export function createHolderProbe(runners: Pick<Repositories["runners"], "get">): (runnerId: string) => Promise<boolean> {
  return async (runnerId) => {
    const holder = await runners.get(runnerId);
    if (!holder) return false;
    let url: URL;
    try {
      url = new URL(holder.url);
    } catch {
      return false;
    }
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    return acceptsConnections(url.hostname.replace(/^\[|\]$/g, ""), port, CONNECT_TIMEOUT_MS);
  };
}

/** A TCP connect to host:port within `timeoutMs`; closed again at once. */
export function acceptsConnections(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}
