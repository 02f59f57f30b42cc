import http from "node:http";

/** A reply as the bench reads it: the status and the body parsed as JSON. */
export interface JsonReply {
  status: number;
  body: unknown;
}

/**
 * The benches' HTTP client: real requests over a pool of kept-alive sockets (one per caller), with less of its own
 * CPU than `fetch` (no WHATWG streams or Request/Response objects). The bench shares the runner's process and its
 * cores, so what the client spends is time the figure would otherwise charge to the runner.
 */
export class KeepAliveClient {
  private readonly agent: http.Agent;

  constructor(opts: { sockets: number }) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: opts.sockets });
  }

  /** POSTs `body` as JSON and parses the reply's JSON. */
  postJson(url: string, headers: Record<string, string>, body: unknown): Promise<JsonReply> {
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const request = http.request(
        url,
        {
          method: "POST",
          agent: this.agent,
          headers: { ...headers, "content-type": "application/json", "content-length": payload.length },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", reject);
          response.on("end", () => {
            try {
              resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
            } catch (error) {
              reject(error instanceof Error ? error : new Error(String(error)));
            }
          });
        },
      );
      request.on("error", reject);
      request.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
