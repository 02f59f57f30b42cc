import { AppError, toApiError } from "@berth/protocol";

const JSON_RPC_PARSE_ERROR = -32700;
const JSON_RPC_INTERNAL_ERROR = -32603;
/** What the MCP SDK's transport answers for an HTTP-level refusal (wrong method, media type, session). */
const JSON_RPC_SERVER_ERROR = -32000;

interface JsonRpcHttpError {
  status: number;
  body: { jsonrpc: "2.0"; error: { code: number; message: string }; id: null };
  /** A 5xx: its internal message was not shown, and the caller logs the error. */
  internal: boolean;
}

/**
 * A refusal on /mcp in JSON-RPC form (an MCP client parses the body as JSON-RPC): a client error keeps its HTTP
 * status with -32000, as the SDK's transport does; a 401 says "Unauthorized" (its answer also carries
 * `WWW-Authenticate: Bearer`); a 5xx is -32603 and never shows its internal message. One place, so the MCP route
 * and a runner answering for a session's owner (cluster/forward-to-owner.ts) write the same bytes.
 */
export function jsonRpcHttpError(error: unknown, parseError?: string): JsonRpcHttpError {
  const fastifyError = error as { statusCode?: number; message?: string };
  let status: number;
  let code = JSON_RPC_SERVER_ERROR;
  let message: string;
  let internal = false;
  if (parseError !== undefined) {
    status = 400;
    code = JSON_RPC_PARSE_ERROR;
    message = `Parse error: ${parseError}`;
  } else if (!AppError.isInstance(error) && fastifyError.statusCode && fastifyError.statusCode < 500) {
    status = fastifyError.statusCode;
    message = fastifyError.message ?? "";
  } else {
    const api = toApiError(error);
    status = api.status;
    message = api.body.error.message;
    if (status >= 500) {
      code = JSON_RPC_INTERNAL_ERROR;
      internal = true;
    }
  }
  if (status === 401) message = `Unauthorized: ${message}`;
  return { status, body: { jsonrpc: "2.0", error: { code, message }, id: null }, internal };
}
