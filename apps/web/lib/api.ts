/**
 * Typed client for the runner's REST API as the browser sees it: same origin (`/api/...` is proxied by
 * server.mjs), the httpOnly `berth_browser` cookie (a browser session minted at sign-in, never an API
 * token) is the credential, so no secret lives in JS.
 *
 * Where docs/api.md is silent the UI assumes the following (kept here, in one place):
 *  A1  Session list items are `{id, name, status, autonomy, network, terminationCause?, createdAt}`;
 *      network is "none" | "egress" (prisma schema comment); status starting|ready|stopped|failed|deleted.
 *  A2  A run_script call answers only when the script ends. The IDE sends it over socket.io `tool:call`
 *      (a reload does not abort it, while a REST caller that hangs up aborts its call) with a `callId`, and
 *      learns the run id from `run:started {callId, runId, sessionId}`, sent to the calling socket as soon
 *      as the run exists (no polling).
 *  A3  `run:subscribe {runId, offset: {stdout, stderr}}` replays each stream from its offset, then follows
 *      live; `run:output.offset` is the chunk's byte offset within its own stream. The UI drops bytes it
 *      already has, so replays, reconnects and its poll never duplicate nor leave a gap.
 *  A4  `process:output.offset` is the byte offset in the process's combined log; the replay of
 *      `process:subscribe` comes as stream "combined". Lines prefixed `[stdout] ` / `[stderr] ` (the agent's
 *      own log format) are stripped and coloured if they ever appear.
 *  A5  A parked call (202, or `{status:"parked"}` as a socket ack) is waited on by re-issuing the identical
 *      call over REST with `?wait=<ms>`: the runner reuses the pending approval for the same sha256 and,
 *      once approved, consumes it and runs the call.
 *  A6  Runs filter: `status` is the run status (running|finished|interrupted); the outcome filter is sent
 *      as `outcome=` and also applied client-side in case the runner ignores it.
 *  A7  `GET /api/runs/:id` → `{run, toolCalls, receipt?}`; when `receipt` is absent but `run.receiptId` is
 *      set, the receipt is fetched with `GET /api/receipts/:id`.
 *  A8  Log pages: `limit` is bytes; `done` is true when the run has ended and `nextOffset` is the end;
 *      `&download=1` answers the whole stream as an attachment.
 *  A9  `GET /api/approvals` with no `status` returns every approval (newest first, up to `limit`).
 *  A10 Socket rooms: `file:changed` (path "." = anything may have changed), `run:status`, `process:status`,
 *      `session:status` reach sockets that sent `session:join`, each carrying `sessionId`; `runs:subscribe`
 *      (not in api.md) adds every visible run's `run:status` for the dashboards; `approval:created` and
 *      `approval:decided` (carrying the ApprovalRequest) need `approvals:subscribe`; only operators and admins
 *      get everyone's from the two subscriptions, others their own sessions' (docs/api.md, Roles).
 *  A11 `GET /api/shared/:token` → `logs.stdout` / `logs.stderr` are either strings or `{content, offset,
 *      size}` tails; both are shown.
 */
import type { ApprovalRequest, Receipt, ToolResult } from "@berth/protocol";

export type ApiErrorBody = { error: { code: string; message: string } };

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

export type Autonomy = "read-only" | "default" | "trusted" | "yolo";
export type Network = "none" | "egress";
export const AUTONOMY_OPTIONS: readonly Autonomy[] = ["read-only", "default", "trusted", "yolo"];
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
export const NETWORK_OPTIONS: readonly Network[] = ["none", "egress"];

export type Session = {
  id: string;
  name: string;
  status: string;
  autonomy: Autonomy;
  network: Network;
  terminationCause?: string | null;
  ownerId?: string;
  /** Who last changed autonomy after creation (null: as created). */
  autonomyChangedBy?: string | null;
  autonomyChangedAt?: string | null;
  createdAt: string;
};

export type RunStatus = "running" | "finished" | "interrupted";
export const RUN_STATUSES: readonly RunStatus[] = ["running", "finished", "interrupted"];
export const RUN_OUTCOMES = ["succeeded", "failed", "aborted", "timed-out", "oom-killed", "spawn-failed", "cleanup-incomplete", "interrupted"] as const;

export type Run = {
  id: string;
  sessionId: string;
  tool: string;
  status: RunStatus | string;
  outcome: string | null;
  exitCode: number | null;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  receiptId?: string | null;
  /** Who started it: browser (a person), api (a script), agent (MCP); null on older runs. */
  caller?: RunCaller | null;
};

export type ToolCallRow = {
  id: string;
  tool: string;
  caller?: string;
  actionClass?: string;
  verdict?: string;
  approvalId?: string | null;
  ok?: boolean | null;
  errorCode?: string | null;
  durationMs?: number | null;
  createdAt?: string;
  args?: unknown;
};

export type RunDetail = { run: Run; toolCalls: ToolCallRow[]; receipt?: Receipt | null };

export type LogStream = "stdout" | "stderr";
export type LogPage = { content: string; offset: number; nextOffset: number; done: boolean };

export type Verification = { valid: boolean; reason?: string };

export type SharedLog = string | { content: string; offset?: number; size?: number };
export type SharedReceipt = {
  receipt: Receipt;
  verification?: Verification;
  run?: Partial<Run> | null;
  logs?: { stdout?: SharedLog; stderr?: SharedLog; combined?: SharedLog } | null;
  /** The runner's public key, to verify the receipt where it is shown. */
  publicKey?: { keyId: string; publicKey: string } | null;
};

export const sharedLogText = (log: SharedLog | undefined): string => (typeof log === "string" ? log : (log?.content ?? ""));

export type Skill = { name: string; description: string; body: string; allowedTools?: string[] };

export type Parked = { status: "parked"; approvalId: string; text: string; sha256: string };
export type RunCaller = "browser" | "api" | "agent";
/** How the UI names who made a call or started a run (runs, tool calls and receipts record it). */
export const CALLER_LABELS: Record<RunCaller, string> = { browser: "a person, in the browser", api: "a script (API token)", agent: "an agent (MCP)" };
export const callerLabel = (caller: string | null | undefined): string => (caller ? (CALLER_LABELS[caller as RunCaller] ?? caller) : "—");

export type { ApprovalRequest, Receipt, ToolResult };

async function request<T>(method: string, path: string, body?: unknown, init?: { signal?: AbortSignal }): Promise<{ status: number; data: T }> {
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
    const error = (data as Partial<ApiErrorBody> | null)?.error;
    if (response.status === 401 && typeof window !== "undefined" && !path.startsWith("/api/session")) {
      window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
    }
    throw new ApiError(response.status, error?.code ?? "http_error", error?.message ?? `${method} ${path} failed with ${response.status}`);
  }
  return { status: response.status, data: data as T };
}

const get = async <T>(path: string) => (await request<T>("GET", path)).data;
const enc = encodeURIComponent;

function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

// ---- auth ----
export const signIn = async (token: string) => (await request<{ user: { name: string; role: string } }>("POST", "/api/session", { token })).data;
export const signOut = async () => void (await request<null>("DELETE", "/api/session"));

// ---- sessions ----
export const listSessions = async () => (await get<{ sessions: Session[] }>("/api/sessions")).sessions;
export const getSession = async (id: string): Promise<Session> => {
  const data = await get<Session | { session: Session }>(`/api/sessions/${enc(id)}`);
  return "session" in data ? data.session : data;
};
export const createSession = async (input: { name?: string; autonomy?: Autonomy; network?: Network }) =>
  (await request<Session>("POST", "/api/sessions", input)).data;
/** Changes a session's autonomy (its owner up to what their role allows, or an operator). */
export const setSessionAutonomy = async (id: string, autonomy: Autonomy) => (await request<Session>("PATCH", `/api/sessions/${enc(id)}`, { autonomy })).data;
export const deleteSession = async (id: string) => void (await request<unknown>("DELETE", `/api/sessions/${enc(id)}`));

// ---- tools ----
export type ToolOutcome = { kind: "result"; result: ToolResult } | { kind: "parked"; parked: Parked };

/** One POST of a tool call; a parked call comes back as `{kind: "parked"}` instead of throwing. */
export async function callToolOnce(sessionId: string, tool: string, args: unknown, opts: { waitMs?: number; signal?: AbortSignal } = {}): Promise<ToolOutcome> {
  const { status, data } = await request<ToolResult | Parked>(
    "POST",
    `/api/sessions/${enc(sessionId)}/tools/${enc(tool)}${query({ wait: opts.waitMs })}`,
    { args },
    { signal: opts.signal },
  );
  if (status === 202 || (data as Parked).status === "parked") return { kind: "parked", parked: data as Parked };
  return { kind: "result", result: data as ToolResult };
}

/**
 * A tool call that waits through approval (A5): reports the parked request once, then re-issues the call
 * with `?wait=` until the operator decides. A denial comes back as a ToolResult with `error.code = "denied"`.
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
export const listRuns = async (filter: { sessionId?: string; status?: string; outcome?: string; limit?: number } = {}) => {
  const runs = (await get<{ runs: Run[] }>(`/api/runs${query({ sessionId: filter.sessionId, status: filter.status, outcome: filter.outcome, limit: filter.limit ?? 100 })}`)).runs;
  return filter.outcome ? runs.filter((run) => run.outcome === filter.outcome) : runs;
};
export const getRun = async (id: string): Promise<RunDetail> => {
  const detail = await get<RunDetail>(`/api/runs/${enc(id)}`);
  if (!detail.receipt && detail.run.receiptId) detail.receipt = await getReceipt(detail.run.receiptId).catch(() => null);
  return { ...detail, toolCalls: detail.toolCalls ?? [] };
};
export const runLogDownloadUrl = (id: string, stream: LogStream) => `/api/runs/${enc(id)}/logs${query({ stream, download: 1 })}`;
export const getRunLogs = async (id: string, stream: LogStream, offset = 0, limit = 65_536) =>
  get<LogPage>(`/api/runs/${enc(id)}/logs${query({ stream, offset, limit })}`);

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

// ---- receipts ----
export const getReceipt = async (id: string) => {
  const data = await get<Receipt | { receipt: Receipt }>(`/api/receipts/${enc(id)}`);
  return "receipt" in data ? data.receipt : data;
};
export const verifyReceipt = async (receipt: unknown) => (await request<Verification>("POST", "/api/receipts/verify", { receipt })).data;
export const shareReceipt = async (id: string) => (await request<{ token: string; url: string }>("POST", `/api/receipts/${enc(id)}/share`)).data;
export const unshareReceipt = async (id: string) => void (await request<unknown>("DELETE", `/api/receipts/${enc(id)}/share`));

// ---- approvals ----
export const listApprovals = async (status?: string) => (await get<{ approvals: ApprovalRequest[] }>(`/api/approvals${query({ status })}`)).approvals;
/** Withdraws one's own parked call (only whoever asked may); the waiting call ends as cancelled. */
export const cancelApproval = async (id: string, sha256: string) => (await request<ApprovalRequest>("POST", `/api/approvals/${enc(id)}`, { decision: "cancel", sha256 })).data;
/** Stop: aborts a running run (its outcome is aborted). */
export const cancelRun = async (id: string) => (await request<unknown>("POST", `/api/runs/${enc(id)}/cancel`)).data;
export const decideApproval = async (id: string, decision: "approve" | "deny", sha256: string, note?: string) =>
  (await request<unknown>("POST", `/api/approvals/${enc(id)}`, { decision, sha256, ...(note ? { note } : {}) })).data;

// ---- skills ----
export const listSkills = async () => (await get<{ skills: Skill[] }>("/api/skills")).skills;
export const getSkill = async (name: string): Promise<Skill> => {
  const data = await get<Skill | { skill: Skill }>(`/api/skills/${enc(name)}`);
  return "skill" in data ? data.skill : data;
};
// The runner's skill bodies are strict: exactly these fields (and no name on PUT).
export const createSkill = async (skill: Skill) =>
  (await request<Skill>("POST", "/api/skills", { name: skill.name, description: skill.description, body: skill.body, allowedTools: skill.allowedTools ?? [] })).data;
export const updateSkill = async (name: string, skill: Skill) =>
  (await request<Skill>("PUT", `/api/skills/${enc(name)}`, { description: skill.description, body: skill.body, allowedTools: skill.allowedTools ?? [] })).data;
export const deleteSkill = async (name: string) => void (await request<unknown>("DELETE", `/api/skills/${enc(name)}`));

// ---- users and tokens (admin) ----
export const ROLES = ["admin", "operator", "developer", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export type User = { id: string; name: string; role: Role; createdAt: string; disabled?: boolean };
export type ApiTokenInfo = { id: string; userId: string; userName: string; name: string; createdAt: string; lastUsedAt: string | null; revokedAt: string | null };
export const listUsers = async () => (await get<{ users: User[] }>("/api/users")).users;
export const createUser = async (name: string, role: Role) => (await request<User>("POST", "/api/users", { name, role })).data;
export const listTokens = async () => (await get<{ tokens: ApiTokenInfo[] }>("/api/tokens")).tokens;
/** The token itself is in this answer only: the runner keeps its hash. */
export const issueToken = async (userId: string, name: string) =>
  (await request<{ id: string; token: string }>("POST", "/api/tokens", { userId, ...(name ? { name } : {}) })).data;
export const revokeToken = async (id: string) => void (await request<unknown>("DELETE", `/api/tokens/${enc(id)}`));
/** Disabled: their tokens are refused and their open sockets end; enabling lets the same tokens work again. */
export const setUserDisabled = async (id: string, disabled: boolean) => (await request<User>("PATCH", `/api/users/${enc(id)}`, { disabled })).data;
/** Their sessions are deleted and their tokens revoked; their runs and receipts stay, under their name. */
export const deleteUser = async (id: string) => void (await request<unknown>("DELETE", `/api/users/${enc(id)}`));

// ---- browser sessions (sign-ins) ----
export type BrowserSessionInfo = {
  id: string;
  userId: string;
  userName: string;
  userAgent: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** The sign-in making this request. */
  current: boolean;
};
/** One's own sign-ins (an admin's list has everyone's). */
export const listBrowserSessions = async () => (await get<{ sessions: BrowserSessionInfo[] }>("/api/browser-sessions")).sessions;
/** Ends a sign-in at once: its cookie is refused and its open connections close. */
export const revokeBrowserSession = async (id: string) => (await request<BrowserSessionInfo>("DELETE", `/api/browser-sessions/${enc(id)}`)).data;

// ---- policy rules (operators) ----
export type PolicyEffect = "allow" | "ask" | "deny";
/** Whom a rule governs: agents and scripts (MCP, API tokens), people in the browser, or both. */
export const POLICY_TARGETS = ["everyone", "agents", "people"] as const;
export type PolicyTarget = (typeof POLICY_TARGETS)[number];
export type PolicyRule = { id: string; tool: string; commandPrefix?: string | null; effect: PolicyEffect; appliesTo?: PolicyTarget; mustMatch: string[]; mustNotMatch: string[]; createdBy?: string; createdAt?: string };
export const listPolicyRules = async () => (await get<{ rules: PolicyRule[] }>("/api/policy-rules")).rules;
export const createPolicyRule = async (rule: { tool: string; commandPrefix?: string; matchAll?: boolean; effect: PolicyEffect; appliesTo: PolicyTarget; mustMatch: string[]; mustNotMatch: string[] }) =>
  (await request<PolicyRule>("POST", "/api/policy-rules", rule)).data;
export const deletePolicyRule = async (id: string) => void (await request<unknown>("DELETE", `/api/policy-rules/${enc(id)}`));

// ---- MCP servers ----
export type McpServer = {
  id: string;
  name: string;
  transport: "http" | "stdio";
  scope: "global" | "user";
  url?: string;
  command?: string;
  args?: string[];
  headerNames?: string[];
  ownerUserId: string;
  createdAt: string;
};
export type McpServerInput = { name: string; transport: "http" | "stdio"; scope: "global" | "user"; url?: string; headers?: Record<string, string>; command?: string; args?: string[] };
export type McpToolPin = { serverId: string; toolName: string; schemaHash: string; acceptedHash: string; status: "accepted" | "held" };
export const listMcpServers = async () => (await get<{ servers: McpServer[] }>("/api/mcp-servers")).servers;
export const registerMcpServer = async (input: McpServerInput) => (await request<McpServer>("POST", "/api/mcp-servers", input)).data;
export const removeMcpServer = async (id: string) => void (await request<unknown>("DELETE", `/api/mcp-servers/${enc(id)}`));
export const listMcpToolPins = async (id: string) => (await get<{ pins: McpToolPin[] }>(`/api/mcp-servers/${enc(id)}/pins`)).pins;
/** Accepts the schema the operator reviewed (by its hash): a newer change is refused, not accepted blind. */
export const acceptMcpTool = async (id: string, toolName: string, schemaHash: string) =>
  (await request<McpToolPin>("POST", `/api/mcp-servers/${enc(id)}/accept`, { toolName, schemaHash })).data;

/** Built-in tool names (docs/tools.md) offered as a skill's allowed tools. */
export const BUILTIN_TOOLS = ["read_file", "write_file", "edit", "apply_patch", "glob", "grep", "bash", "run_script", "gateway", "monitor", "dispatch", "update_agents_md"] as const;

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
