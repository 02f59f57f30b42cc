import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { PORT_FRAME_MAX_BYTES, PortMethod } from "@berth/protocol";
import { PortRelay } from "./port-relay";
import { parseProcNetTcp } from "./list-listening-ports";

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(onConnection: (socket: net.Socket) => void): Promise<number> {
  const server = net.createServer(onConnection);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as net.AddressInfo).port;
}

async function readAll(relay: PortRelay, streamId: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (;;) {
    const { data, eof } = (await relay.dispatch(PortMethod.Read, { streamId, waitMs: 2000 })) as {
      data: string;
      eof: boolean;
    };
    parts.push(Buffer.from(data, "base64"));
    if (eof) return Buffer.concat(parts);
  }
}

describe("PortRelay", () => {
  it("relays bytes both ways, in frames of at most PORT_FRAME_MAX_BYTES, and reports the server's end", async () => {
    const big = Buffer.alloc(PORT_FRAME_MAX_BYTES * 5 + 7, 0xab);
    const port = await listen((socket) => socket.once("data", (hello) => socket.end(Buffer.concat([hello, big]))));
    const relay = new PortRelay();
    const { streamId } = (await relay.dispatch(PortMethod.Open, { port })) as { streamId: string };
    await expect(
      relay.dispatch(PortMethod.Write, { streamId, data: Buffer.from("hi\n").toString("base64") }),
    ).resolves.toEqual({ bytesWritten: 3 });
    const first = (await relay.dispatch(PortMethod.Read, { streamId, waitMs: 2000 })) as { data: string };
    expect(Buffer.from(first.data, "base64").length).toBeLessThanOrEqual(PORT_FRAME_MAX_BYTES);
    const rest = await readAll(relay, streamId);
    const all = Buffer.concat([Buffer.from(first.data, "base64"), rest]);
    expect(all.subarray(0, 3).toString()).toBe("hi\n");
    expect(all.length).toBe(3 + big.length);
    await expect(relay.dispatch(PortMethod.Close, { streamId })).resolves.toEqual({ closed: true });
    expect(relay.openCount).toBe(0);
  });

  it("names the port when nothing listens, and refuses a port out of range naming the field", async () => {
    const port = await listen(() => undefined);
    await new Promise((r) => servers.pop()!.close(r));
    const relay = new PortRelay();
    await expect(relay.dispatch(PortMethod.Open, { port })).rejects.toThrow(
      `nothing answers on 127.0.0.1:${port} in the container (ECONNREFUSED)`,
    );
    await expect(relay.dispatch(PortMethod.Open, { port: 70000 })).rejects.toThrow(/port\.open params: port:/);
    await expect(relay.dispatch(PortMethod.Read, { streamId: "nope" })).rejects.toThrow(
      "port.read: unknown streamId nope",
    );
  });
});

describe("parseProcNetTcp", () => {
  it("keeps LISTEN sockets on addresses the agent reaches", () => {
    const table = [
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
      "   0: 00000000:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1",
      "   1: 0100007F:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2 1",
      "   2: 0100007F:0BB9 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 3 1",
      "   3: 0200A8C0:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4 1",
    ].join("\n");
    expect(parseProcNetTcp(table)).toEqual([
      { port: 8000, address: "0.0.0.0" },
      { port: 3000, address: "127.0.0.1" },
    ]);
    const v6 =
      "header\n   0: 00000000000000000000000000000000:1F41 00000000000000000000000000000000:0000 0A 0 0 0 0 0 0";
    expect(parseProcNetTcp(v6)).toEqual([{ port: 8001, address: "::" }]);
  });
});
