import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createHolderProbe } from "./holder-probe";

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A listening port, and one that was listening and is closed again (what a killed runner leaves). */
async function ports(): Promise<{ open: number; closed: number }> {
  const listen = () =>
    new Promise<net.Server>((resolve) => {
      const server = net.createServer((socket) => socket.destroy());
      server.listen(0, "127.0.0.1", () => resolve(server));
    });
  const open = await listen();
  servers.push(open);
  const closed = await listen();
  const closedPort = (closed.address() as net.AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  return { open: (open.address() as net.AddressInfo).port, closed: closedPort };
}

describe("holder probe", () => {
  it("answers true for a runner whose port accepts connections, false for a closed port or an unknown runner", async () => {
    const { open, closed } = await ports();
    const rows: Record<string, { id: string; url: string }> = {
      alive: { id: "alive", url: `http://127.0.0.1:${open}` },
      killed: { id: "killed", url: `http://127.0.0.1:${closed}` },
    };
    const probe = createHolderProbe({ get: (id: string) => Promise.resolve((rows[id] ?? null) as never) });
    expect(await probe("alive")).toBe(true);
    expect(await probe("killed")).toBe(false);
    expect(await probe("nobody")).toBe(false);
  });
});
