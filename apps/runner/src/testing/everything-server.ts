import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { Server as SdkServer } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export interface EverythingServer {
  /** The Streamable HTTP endpoint on 127.0.0.1. */
  url: string;
  /** Every JSON-RPC method it received, in order. */
  received: string[];
  stop(): Promise<void>;
}

/**
 * server-everything (the MCP reference server, a devDependency) over Streamable HTTP on 127.0.0.1, one
 * SDK transport per MCP session as its own launcher does: a real upstream for gateway tests.
 */
export async function startEverythingServer(): Promise<EverythingServer> {
  const entry = pathToFileURL(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/server/index.js")).href;
  const { createServer } = (await import(entry)) as { createServer: () => { server: { server: SdkServer; connect: SdkServer["connect"] } } };
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const received: string[] = [];
  const httpServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const body = text ? (JSON.parse(text) as { method?: string } | { method?: string }[]) : undefined;
        for (const message of Array.isArray(body) ? body : body ? [body] : []) if (message.method) received.push(message.method);
        const id = req.headers["mcp-session-id"];
        let transport = typeof id === "string" ? transports.get(id) : undefined;
        if (!transport) {
          const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void transports.set(sid, created) });
          await createServer().server.connect(created);
          transport = created;
        }
        await transport.handleRequest(req, res, body);
      })().catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    received,
    async stop() {
      for (const t of transports.values()) await t.close().catch(() => undefined);
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
