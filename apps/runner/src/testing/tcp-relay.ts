import net, { type AddressInfo } from "node:net";
import { PEER_LINK_PATH } from "../cluster/peer-link";

/**
 * A TCP relay in front of a runner, for the peer link's tests: another runner reaches it through the relay (the
 * session's Runner row names it), which tells the link's connection from HTTP ones by their first bytes, counts the
 * tool calls that went by HTTP, can refuse links (a link that cannot be made) and cut every connection (a network
 * fault).
 */
export class TcpRelay {
  readonly server = net.createServer((client) => this.relay(client));
  port = 0;
  refuseLinks = false;
  links = 0;
  /** The runner's port behind the relay (known once it listens). */
  target = 0;
  /** Tool calls that went to the runner as HTTP requests. */
  httpToolCalls = 0;
  private readonly open = new Set<net.Socket>();

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Ends every relayed connection (the link with them): what a network fault does. */
  cut(): void {
    for (const socket of this.open) socket.destroy();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private relay(client: net.Socket): void {
    const upstream = net.connect(this.target, "127.0.0.1");
    this.open.add(client).add(upstream);
    let first = true;
    let link = false;
    client.on("data", (chunk: Buffer) => {
      if (first) {
        first = false;
        link = chunk.toString("latin1").startsWith(`GET ${PEER_LINK_PATH} `);
        if (link && this.refuseLinks) return void client.destroy();
        if (link) this.links++;
      }
      if (!link) this.httpToolCalls += chunk.toString("latin1").match(/^POST \/api\/sessions\/[^/]+\/tools\//gm)?.length ?? 0;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.open.delete(client);
      this.open.delete(upstream);
    };
    for (const socket of [client, upstream]) socket.on("close", end).on("error", end);
  }
}
