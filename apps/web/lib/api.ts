/**
 * Typed client for the runner's REST API as the browser sees it: same origin (`/api/...` is proxied by
 * server.mjs), the httpOnly `berth_browser` cookie (a browser session minted at sign-in, never an API
 * token) is the credential, so no secret lives in JS. Every type is the protocol's (packages/protocol
 * src/api/*), and every answer is safeParsed with its schema: an answer that does not parse is an ApiError
 * naming the endpoint and the field, not a crash deep in a component.
 */
import {
  ApiErrorBodySchema,
  ApiTokenListSchema,
  ApprovalListSchema,
  ApprovalRequestSchema,
  AUTONOMY_LEVELS,
  BrowserSessionListSchema,
  BrowserSessionViewSchema,
  BUILTIN_TOOL_NAMES,
  CreatedUserSchema,
  IssuedTokenSchema,
  McpServerListSchema,
  McpServerViewSchema,
  McpToolPinListSchema,
  McpToolPinViewSchema,
  MintedBrowserSessionSchema,
  NETWORK_MODES,
  ParkedCallSchema,
  POLICY_TARGETS as PROTOCOL_POLICY_TARGETS,
  PolicyRuleListSchema,
  ReceiptSchema,
  ROLES,
  RUN_STATUSES,
  RunCancelResultSchema,
  RunDetailSchema,
  RunListSchema,
  RunLogPageSchema,
  RunLogTimesResultSchema,
  RunOutcomeSchema,
  SessionDetailSchema,
  SessionListSchema,
  SessionViewSchema,
  ShareLinkSchema,
  SkillListSchema,
  SkillViewSchema,
  ToolResultSchema,
  UserListSchema,
  UserViewSchema,
  VerifyResultSchema,
  type ApiTokenView,
  type ApprovalRequest,
  type Autonomy,
  type BrowserSessionView,
  type CallerKind,
  type CreatePolicyRuleBody,
  type Decision,
  type McpServerConfig,
  type McpServerView,
  type McpToolPinView,
  type Network,
  type ParkedCall,
  type PolicyRuleView,
  type PolicyTarget,
  type Receipt,
  type Role,
  type RunDetail as RunDetailView,
  type RunLogPage,
  type RunStatus,
  type RunView,
  type SessionView,
  type SharedLogTail,
  type SharedReceipt,
  type SkillBody,
  type ToolCallView,
  type ToolResult,
  type UserView,
  type VerifyResult,
} from "@berth/protocol";
import { ApprovalFilesSchema, type ApprovalFile, type ApprovalFiles } from "@berth/protocol";

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

/** The glob the IDE lists its file tree with (ide.tsx on the client, lib/runner.ts for the first view). */
export const FILE_TREE_GLOB = { pattern: "**/*", maxResults: 5000 } as const;

export type { ApprovalRequest, Autonomy, Network, Receipt, Role, RunStatus, ToolResult };
export const AUTONOMY_OPTIONS: readonly Autonomy[] = AUTONOMY_LEVELS;
/**
 * Each level in one line (docs/tools.md "Autonomy"). Autonomy governs agents and scripts; the session's
 * owner in the browser acts at once at every level but read-only.
 */
export const AUTONOMY_HELP: Record<Autonomy, string> = {
  "read-only": "everyone may only read: writes and commands are refused, yours too",
  default: "agents and scripts ask before commands Berth does not recognise; you act at once",
  trusted: "agents and scripts run commands without asking; plans and system changes still ask",
  yolo: "agents and scripts never ask (what policy rules deny stays denied)",
};
/** The highest level a developer may set on their own session after creation (yolo is an operator's call). */
export const DEVELOPER_MAX_AUTONOMY: Autonomy = "trusted";
export const NETWORK_OPTIONS: readonly Network[] = NETWORK_MODES;

export type Session = SessionView;
export { RUN_STATUSES };
export const RUN_OUTCOMES = RunOutcomeSchema.options;
export type Run = RunView;
export type ToolCallRow = ToolCallView;
/** A run with its tool calls and, once sealed, its receipt. */
export type RunDetail = RunDetailView & { receipt?: Receipt | null };
export type LogStream = "stdout" | "stderr";
export type LogPage = Omit<RunLogPage, "size">;
export type Verification = VerifyResult;
export type { SharedReceipt };
export const sharedLogText = (log: SharedLogTail | undefined): string => log?.content ?? "";
/** A skill as the editor holds it (what POST /api/skills takes). */
export type Skill = SkillBody;
export type Parked = ParkedCall;
export type RunCaller = CallerKind;
/** How the UI names who made a call or started a run (runs, tool calls and receipts record it). */
export const CALLER_LABELS: Record<RunCaller, string> = { browser: "a person, in the browser", api: "a script (API token)", agent: "an agent (MCP)" };
export const callerLabel = (caller: string | null | undefined): string => (caller ? (CALLER_LABELS[caller as RunCaller] ?? caller) : "—");

/** What parsing an answer needs of a protocol schema (the web has no zod of its own: the schemas bring it). */
export type ResponseSchema<T> = {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
};

/** Names the endpoint and the first field that does not match, e.g. `GET /api/runs: runs.0.startedAt: expected string`. */
export function parseAnswer<T>(schema: ResponseSchema<T>, data: unknown, endpoint: string): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.length ? issue.path.map(String).join(".") : "the body";
  throw new ApiError(502, "bad_response", `${endpoint} answered what this page does not read: ${field}: ${issue?.message ?? "invalid"}`);
}

async function send(method: string, path: string, body?: unknown, init?: { signal?: AbortSignal }): Promise<{ status: number; data: unknown }> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      signal: init?.signal,
    });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiError(0, "network", "The Berth server does not answer");
  }
  const text = await response.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!response.ok) {
    const error = ApiErrorBodySchema.safeParse(data);
    if (response.status === 401 && typeof window !== "undefined" && !path.startsWith("/api/session")) {
      window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
    }
    const { code, message } = error.success ? error.data.error : { code: "http_error", message: `${method} ${path} failed with ${response.status}` };
    throw new ApiError(response.status, code, message);
  }
  return { status: response.status, data };
}

/** A request whose answer is parsed with `schema`. */
async function request<T>(method: string, path: string, schema: ResponseSchema<T>, body?: unknown): Promise<T> {
  const { data } = await send(method, path, body);
  return parseAnswer(schema, data, `${method} ${path.split("?")[0]}`);
}
const get = <T>(path: string, schema: ResponseSchema<T>) => request("GET", path, schema);
/** A request whose answer (often a 204) the page does not read. */
const act = async (method: string, path: string, body?: unknown): Promise<void> => void (await send(method, path, body));
const enc = encodeURIComponent;

function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

// ---- auth (the web server's own /api/session: sign-in sets the browser-session cookie) ----
/** What app/api/session answers: the signed-in user and when the sign-in ends (never the secret). */
const SignedInSchema = MintedBrowserSessionSchema.pick({ user: true, expiresAt: true });
export const signIn = (token: string) => request("POST", "/api/session", SignedInSchema, { token });
export const signOut = () => act("DELETE", "/api/session");

// ---- sessions ----
export const listSessions = async () => (await get("/api/sessions", SessionListSchema)).sessions;
export const getSession = (id: string) => get(`/api/sessions/${enc(id)}`, SessionDetailSchema);
export const createSession = (input: { name?: string; autonomy?: Autonomy; network?: Network }) => request("POST", "/api/sessions", SessionViewSchema, input);
/** Changes a session's autonomy (its owner up to what their role allows, or an operator). */
export const setSessionAutonomy = (id: string, autonomy: Autonomy) => request("PATCH", `/api/sessions/${enc(id)}`, SessionViewSchema, { autonomy });
export const deleteSession = (id: string) => act("DELETE", `/api/sessions/${enc(id)}`);

// ---- tools ----
export type ToolOutcome = { kind: "result"; result: ToolResult } | { kind: "parked"; parked: Parked };

/** One POST of a tool call; a parked call (202) comes back as `{kind: "parked"}` instead of throwing. */
export async function callToolOnce(sessionId: string, tool: string, args: unknown, opts: { waitMs?: number; signal?: AbortSignal } = {}): Promise<ToolOutcome> {
  const path = `/api/sessions/${enc(sessionId)}/tools/${enc(tool)}`;
  const { status, data } = await send("POST", `${path}${query({ wait: opts.waitMs })}`, { args }, { signal: opts.signal });
  if (status === 202) return { kind: "parked", parked: parseAnswer(ParkedCallSchema, data, `POST ${path}`) };
  return { kind: "result", result: parseAnswer(ToolResultSchema, data, `POST ${path}`) };
}

/**
 * A tool call that waits through approval: reports the parked request once, then re-issues the identical
 * call with `?wait=`, which reuses the pending approval for the same sha256 and, once it is approved,
 * consumes it and runs the call. A denial comes back as a ToolResult with `error.code = "denied"`.
 */
export async function callTool(
  sessionId: string,
  tool: string,
  args: unknown,
  opts: { onParked?: (parked: Parked) => void; signal?: AbortSignal; maxWaitMs?: number } = {},
): Promise<ToolResult> {
  let outcome = await callToolOnce(sessionId, tool, args, { signal: opts.signal });
  if (outcome.kind === "result") return outcome.result;
  const parked = outcome.parked;
  opts.onParked?.(parked);
  const deadline = Date.now() + (opts.maxWaitMs ?? 30 * 60_000);
  while (Date.now() < deadline) {
    outcome = await callToolOnce(sessionId, tool, args, { waitMs: 60_000, signal: opts.signal });
    if (outcome.kind === "result") return outcome.result;
  }
  return { ok: false, output: "Still waiting for operator approval", error: { code: "approval_timeout", message: `No decision on approval ${parked.approvalId}` } };
}

// ---- runs ----
export const listRuns = async (filter: { sessionId?: string; status?: string; outcome?: string; limit?: number } = {}) =>
  (await get(`/api/runs${query({ sessionId: filter.sessionId, status: filter.status, outcome: filter.outcome, limit: filter.limit ?? 100 })}`, RunListSchema)).runs;
/** The run, its tool calls and, once sealed, its receipt (`GET /api/receipts/:receiptId`). */
export const getRun = async (id: string): Promise<RunDetail> => {
  const detail: RunDetail = await get(`/api/runs/${enc(id)}`, RunDetailSchema);
  if (detail.run.receiptId) detail.receipt = await getReceipt(detail.run.receiptId).catch(() => null);
  return detail;
};
export const runLogDownloadUrl = (id: string, stream: LogStream) => `/api/runs/${enc(id)}/logs${query({ stream, download: 1 })}`;
/** A page of one log: `offset` and `limit` are bytes; `done` once the run has ended and `nextOffset` is the end. */
/** `timestamps`: the page also says when its bytes arrived (`times`). */
export const getRunLogs = (id: string, stream: LogStream, offset = 0, limit = 65_536, timestamps = false): Promise<LogPage> =>
  get(`/api/runs/${enc(id)}/logs${query({ stream, offset, limit, ...(timestamps ? { timestamps: 1 } : {}) })}`, RunLogPageSchema);

/** When the bytes of a log from `offset` arrived, for a log read as one stream (lib/run-log-stream.ts). */
export const getRunLogTimes = (id: string, stream: LogStream | "combined", offset = 0) =>
  get(`/api/runs/${enc(id)}/logs/times${query({ stream, offset })}`, RunLogTimesResultSchema);

/** Every byte of one stream, page by page. */
export async function getAllRunLogs(id: string, stream: LogStream): Promise<LogPage> {
  let offset = 0;
  let content = "";
  for (let page = 0; page < 10_000; page++) {
    const next = await getRunLogs(id, stream, offset, 1_048_576);
    content += next.content;
    if (next.nextOffset <= offset || next.done || next.content === "") return { content, offset: 0, nextOffset: next.nextOffset, done: next.done };
    offset = next.nextOffset;
  }
  return { content, offset: 0, nextOffset: offset, done: false };
}
/** Stop: aborts a running run (its outcome is aborted). */
export const cancelRun = (id: string) => request("POST", `/api/runs/${enc(id)}/cancel`, RunCancelResultSchema);

// ---- receipts ----
export const getReceipt = (id: string) => get(`/api/receipts/${enc(id)}`, ReceiptSchema);
export const verifyReceipt = (receipt: unknown) => request("POST", "/api/receipts/verify", VerifyResultSchema, { receipt });
export const shareReceipt = (id: string) => request("POST", `/api/receipts/${enc(id)}/share`, ShareLinkSchema);
export const unshareReceipt = (id: string) => act("DELETE", `/api/receipts/${enc(id)}/share`);

// ---- approvals ----
/** No `status`: every approval, newest first. */
export const listApprovals = async (status?: string) => (await get(`/api/approvals${query({ status })}`, ApprovalListSchema)).approvals;
export type { ApprovalFile };
/** The files a parked write_file / edit / apply_patch would change, as they are now: what its card diffs against. */
export const getApprovalFiles = (id: string): Promise<ApprovalFiles> => get(`/api/approvals/${enc(id)}/files`, ApprovalFilesSchema);
/** Withdraws one's own parked call (only whoever asked may); the waiting call ends as cancelled. */
export const cancelApproval = (id: string, sha256: string) => request("POST", `/api/approvals/${enc(id)}`, ApprovalRequestSchema, { decision: "cancel", sha256 });
export const decideApproval = (id: string, decision: "approve" | "deny", sha256: string, note?: string) =>
  request("POST", `/api/approvals/${enc(id)}`, ApprovalRequestSchema, { decision, sha256, ...(note ? { note } : {}) });

// ---- skills ----
export const listSkills = async () => (await get("/api/skills", SkillListSchema)).skills;
export const getSkill = (name: string) => get(`/api/skills/${enc(name)}`, SkillViewSchema);
// The runner's skill bodies are strict: exactly these fields (and no name on PUT).
export const createSkill = (skill: Skill) =>
  request("POST", "/api/skills", SkillViewSchema, { name: skill.name, description: skill.description, body: skill.body, allowedTools: skill.allowedTools ?? [] });
export const updateSkill = (name: string, skill: Skill) =>
  request("PUT", `/api/skills/${enc(name)}`, SkillViewSchema, { description: skill.description, body: skill.body, allowedTools: skill.allowedTools ?? [] });
export const deleteSkill = (name: string) => act("DELETE", `/api/skills/${enc(name)}`);

// ---- users and tokens (admin) ----
export { ROLES };
export type User = UserView;
export type ApiTokenInfo = ApiTokenView;
export const listUsers = async () => (await get("/api/users", UserListSchema)).users;
export const createUser = (name: string, role: Role) => request("POST", "/api/users", CreatedUserSchema, { name, role });
export const listTokens = async () => (await get("/api/tokens", ApiTokenListSchema)).tokens;
/** The token itself is in this answer only: the runner keeps its hash. */
export const issueToken = (userId: string, name: string) => request("POST", "/api/tokens", IssuedTokenSchema, { userId, ...(name ? { name } : {}) });
export const revokeToken = (id: string) => act("DELETE", `/api/tokens/${enc(id)}`);
/** Disabled: their tokens are refused and their open sockets end; enabling lets the same tokens work again. */
export const setUserDisabled = (id: string, disabled: boolean) => request("PATCH", `/api/users/${enc(id)}`, UserViewSchema, { disabled });
/** Their sessions are deleted and their tokens revoked; their runs and receipts stay, under their name. */
export const deleteUser = (id: string) => act("DELETE", `/api/users/${enc(id)}`);

// ---- browser sessions (sign-ins) ----
export type BrowserSessionInfo = BrowserSessionView;
/** One's own sign-ins (an admin's list has everyone's). */
export const listBrowserSessions = async () => (await get("/api/browser-sessions", BrowserSessionListSchema)).sessions;
/** Ends a sign-in at once: its cookie is refused and its open connections close. */
export const revokeBrowserSession = (id: string) => request("DELETE", `/api/browser-sessions/${enc(id)}`, BrowserSessionViewSchema);

// ---- policy rules (operators) ----
export type PolicyEffect = Decision;
/** Whom a rule governs: agents and scripts (MCP, API tokens), people in the browser, or both. */
export type { PolicyTarget };
/** In the order the form offers them: everyone, the default, first. */
export const POLICY_TARGETS: readonly PolicyTarget[] = ["everyone", ...PROTOCOL_POLICY_TARGETS.filter((target) => target !== "everyone")];
export type PolicyRule = PolicyRuleView;
export const listPolicyRules = async () => (await get("/api/policy-rules", PolicyRuleListSchema)).rules;
/** Answers the rule as validated (the stored one is listed by listPolicyRules). */
export const createPolicyRule = (rule: CreatePolicyRuleBody) => act("POST", "/api/policy-rules", rule);
export const deletePolicyRule = (id: string) => act("DELETE", `/api/policy-rules/${enc(id)}`);

// ---- MCP servers ----
export type McpServer = McpServerView;
export type McpServerInput = McpServerConfig;
export type McpToolPin = McpToolPinView;
export const listMcpServers = async () => (await get("/api/mcp-servers", McpServerListSchema)).servers;
export const registerMcpServer = (input: McpServerInput) => request("POST", "/api/mcp-servers", McpServerViewSchema, input);
export const removeMcpServer = (id: string) => act("DELETE", `/api/mcp-servers/${enc(id)}`);
export const listMcpToolPins = async (id: string) => (await get(`/api/mcp-servers/${enc(id)}/pins`, McpToolPinListSchema)).pins;
/** Accepts the schema the operator reviewed (by its hash): a newer change is refused, not accepted blind. */
export const acceptMcpTool = (id: string, toolName: string, schemaHash: string) =>
  request("POST", `/api/mcp-servers/${enc(id)}/accept`, McpToolPinViewSchema, { toolName, schemaHash });

/** Built-in tool names (docs/tools.md) offered as a skill's allowed tools and a policy rule's tool. */
export const BUILTIN_TOOLS = BUILTIN_TOOL_NAMES;

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
