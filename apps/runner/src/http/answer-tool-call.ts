import { ToolCallBodySchema, ToolCallQuerySchema, type ParkedCall } from "@berth/protocol";
import { callerOf } from "../auth/browser-sessions";
import type { Principal } from "../auth/tokens";
import type { ToolService } from "../tools/tool-service";
import { parseScanned } from "./validate";
import { parseRequestAllowlist } from "../tools/tool-gate";
import { AbortControllerSupply } from "./abort-controller-supply";

/** Each call's hang-up controller, made ahead (shared by every runner in the process: each controller serves one call). */
const hangUps = new AbortControllerSupply();

/** A tool call's request once it is parsed and authenticated, as the route and the fast path both hold it. */
export interface ToolCallRequest {
  principal: Principal;
  sessionId: string;
  tool: string;
  /** The parsed JSON body (already scanned for lone surrogates by the body parser). */
  body: unknown;
  /** The parsed query (already scanned by the preValidation hook, or `{}` when the URL has none). */
  query: unknown;
  /** Its response: a caller that hangs up before the answer aborts the call. */
  response: HangUp;
}

/**
 * A caller hanging up as an HTTP response tells it: "close" while the answer is not finished. A call that came over a
 * peer link (cluster/peer-link.ts) has one too, closed by the peer's cancel or the link's end.
 */
export interface HangUp {
  on(event: "close", listener: () => void): unknown;
  readonly writableFinished: boolean;
}

/**
 * `POST /api/sessions/:id/tools/:tool` after authentication: one answer for the Fastify route (routes/sessions-routes.ts)
 * and the raw fast path in front of it (tool-call-fast-path.ts), so the two cannot drift apart. Throws what the route
 * throws (a 400 naming the bad field, the call's own errors) for the error answer (build-server.ts, `errorAnswer`).
 */
export async function answerToolCall(tools: Pick<ToolService, "call">, request: ToolCallRequest): Promise<{ status: 200 | 202; body: unknown }> {
  const { principal, response } = request;
  const body = isPlainObject(request.body) ? request.body : parseScanned(ToolCallBodySchema, request.body);
  // A URL without a query string (every call the fast path takes) has nothing to parse.
  const query = isEmptyObject(request.query) ? {} : parseScanned(ToolCallQuerySchema, request.query, "query");
  const { wait } = query;
  const allow = parseRequestAllowlist(query);
  const abort = hangUps.take();
  // A caller that hangs up aborts its call (the run ends as aborted), not a finished response.
  response.on("close", () => {
    if (!response.writableFinished) abort.abort();
  });
  const outcome = await tools.call({
    sessionId: request.sessionId,
    principal,
    tool: request.tool,
    args: body.args ?? {},
    caller: callerOf(principal),
    via: "http",
    waitMs: wait ?? 0,
    signal: abort.signal,
    ...(allow ? { allow } : {}),
  });
  if (outcome.kind === "parked") {
    return { status: 202, body: { status: "parked", approvalId: outcome.approvalId, text: outcome.text, sha256: outcome.sha256, expiresAt: outcome.expiresAt } satisfies ParkedCall };
  }
  return { status: 200, body: outcome.result };
}

/**
 * A body ToolCallBodySchema would take as it is (a JSON object: its `args` are read, nothing else). Anything else
 * goes through the schema, for its error.
 */
function isPlainObject(value: unknown): value is { args?: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  for (const _key in value) return false;
  return true;
}
