import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpPrincipal, McpRequestContext } from "./session-mcp-types";
import type { SessionMcpHandler } from "./create-session-mcp-handler";

export interface McpHttpListenerOptions<P extends McpPrincipal> {
  handler: SessionMcpHandler<P>;
  /** Resolves a bearer token to its principal, or null (→ 401). */
  authenticate(token: string): Promise<P | null>;
  /** May this principal use this session? false → 404, so a session's existence is not revealed. */
  canAccessSession?(principal: P, sessionId: string): Promise<boolean>;
  /** Path prefix; the session id is the one segment after it. */
  basePath?: string;
}

/**
 * A plain `node:http` listener around the handler: `/mcp/:sessionId` routing and bearer auth. The runner
 * does the same in Fastify's onRequest hook and calls the handler itself; this serves tests, the README
 * example and any host without a framework.
 */
export function createMcpHttpListener<P extends McpPrincipal>(
  opts: McpHttpListenerOptions<P>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const base = (opts.basePath ?? "/mcp").replace(/\/+$/, "");
  return (req, res) => {
    void (async () => {
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      const rest = path.startsWith(`${base}/`) ? path.slice(base.length + 1) : undefined;
      if (!rest || rest.includes("/")) return sendJsonRpcError(res, 404, "Not found");
      const sessionId = decodeURIComponent(rest);

      const auth = req.headers.authorization;
      const token = auth?.startsWith("Bearer ") ? auth.slice("Bearer ".length).trim() : "";
      const principal = token ? await opts.authenticate(token) : null;
      if (!principal) {
        res.setHeader("www-authenticate", 'Bearer realm="berth"');
        return sendJsonRpcError(res, 401, "Unauthorized: send Authorization: Bearer <token>");
      }
      if (opts.canAccessSession && !(await opts.canAccessSession(principal, sessionId))) {
        return sendJsonRpcError(res, 404, `Unknown session ${JSON.stringify(sessionId)}`);
      }
      const ctx: McpRequestContext<P> = { sessionId, principal };
      await opts.handler(req, res, undefined, ctx);
    })().catch(() => {
      if (!res.headersSent) sendJsonRpcError(res, 500, "Internal server error");
      else res.end();
    });
  };
}

/** HTTP-level refusals still carry a JSON-RPC error body, as the SDK's own transport does. */
export function sendJsonRpcError(res: ServerResponse, status: number, message: string): void {
  // Headers set earlier with setHeader (www-authenticate) are merged by writeHead.
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}
