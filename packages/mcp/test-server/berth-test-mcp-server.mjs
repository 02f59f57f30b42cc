#!/usr/bin/env node
// A small MCP server built on the real SDK, used as the upstream in @berth/mcp's tests (and handy for
// trying the gateway by hand). Plain node, no build step.
//
//   node berth-test-mcp-server.mjs                          stdio
//   node berth-test-mcp-server.mjs --http --port 0          Streamable HTTP on 127.0.0.1 (prints the URL)
//   options: --label NAME (shown by whoami)  --variant 1|2 (2 = changed echo schema)
//
// Tools: echo, add, fail (isError), slow (sleeps), whoami, flip_schema (switches the echo schema between
// variants and sends notifications/tools/list_changed), crash (stdio: the process exits).
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name, fallback) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && at + 1 < argv.length ? argv[at + 1] : fallback;
};

const label = option("label", "test");
// Process-wide, so flip_schema changes what every connected client sees.
let variant = Number(option("variant", "1")) === 2 ? 2 : 1;
const servers = new Set();

function tools() {
  const echo =
    variant === 1
      ? {
          name: "echo",
          description: "Echoes the text back.",
          inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        }
      : {
          name: "echo",
          description: "Echoes the text back, optionally upper-cased.",
          inputSchema: {
            type: "object",
            properties: { text: { type: "string" }, upper: { type: "boolean" } },
            required: ["text"],
          },
        };
  return [
    echo,
    {
      name: "add",
      description: "Adds two numbers.",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: "fail",
      description: "Always fails with the given message.",
      inputSchema: { type: "object", properties: { message: { type: "string" } } },
    },
    {
      name: "slow",
      description: "Waits ms milliseconds, then answers.",
      inputSchema: { type: "object", properties: { ms: { type: "number" } }, required: ["ms"] },
    },
    { name: "whoami", description: "Names this server instance.", inputSchema: { type: "object", properties: {} } },
    {
      name: "flip_schema",
      description: "Switches the echo tool to its other schema and announces tools/list_changed.",
      inputSchema: { type: "object", properties: {} },
    },
    { name: "crash", description: "Exits the process (stdio only).", inputSchema: { type: "object", properties: {} } },
  ];
}

const text = (value) => ({ content: [{ type: "text", text: String(value) }] });

function createMcpServer() {
  const server = new Server(
    { name: `berth-test-${label}`, version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case "echo":
        return text(variant === 2 && args.upper ? String(args.text).toUpperCase() : args.text);
      case "add": {
        const sum = Number(args.a) + Number(args.b);
        return { ...text(sum), structuredContent: { sum } };
      }
      case "fail":
        return { isError: true, ...text(args.message ?? "failed on purpose") };
      case "slow":
        await new Promise((resolve) => setTimeout(resolve, Number(args.ms)));
        return text(`slept ${args.ms} ms`);
      case "whoami":
        return text(`${label} pid=${process.pid}`);
      case "flip_schema":
        variant = variant === 1 ? 2 : 1;
        await Promise.all([...servers].map((s) => s.sendToolListChanged().catch(() => undefined)));
        return text(`variant ${variant}`);
      case "crash":
        setTimeout(() => process.exit(3), 10);
        return text("crashing");
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
  });
  servers.add(server);
  server.onclose = () => servers.delete(server);
  return server;
}

if (flag("http")) {
  const transports = new Map();
  const http = createServer(async (req, res) => {
    if (!req.url?.startsWith("/mcp")) {
      res.writeHead(404).end();
      return;
    }
    const sessionId = req.headers["mcp-session-id"];
    let transport = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId !== undefined || req.method !== "POST") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      // Stateful so the GET stream can carry notifications/tools/list_changed.
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      const bound = transport;
      transport.onclose = () => {
        if (bound.sessionId) transports.delete(bound.sessionId);
      };
      await createMcpServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  const port = Number(option("port", "0"));
  http.listen(port, "127.0.0.1", () => {
    const address = http.address();
    process.stdout.write(`MCP_TEST_SERVER_URL=http://127.0.0.1:${address.port}/mcp\n`);
  });
  const stop = () => {
    http.close(() => process.exit(0));
    http.closeAllConnections();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
} else {
  await createMcpServer().connect(new StdioServerTransport());
}
