import { AppError } from "@berth/protocol";
import { ROLES, type Principal, type Role } from "./tokens";

/**
 * What a role may do with a resource: `any` (anyone's), `own` (only what belongs to the caller: their
 * sessions and what lives in them, their skills, their MCP servers; for a list, the list is filtered to
 * those) or `none`.
 */
export const ACCESS = ["any", "own", "none"] as const;
export type Access = (typeof ACCESS)[number];

/**
 * One cell per role, the routes and socket events that ask for it, and the reason where the cell is not
 * obvious (docs/api.md prints all three).
 */
export type Rule = Readonly<Record<Role, Access>> & { readonly by: readonly string[]; readonly why?: string };

const rule = (
  by: string[],
  admin: Access,
  operator: Access,
  developer: Access,
  viewer: Access,
  why?: string,
): Rule => ({
  by,
  admin,
  operator,
  developer,
  viewer,
  ...(why ? { why } : {}),
});

/**
 * Every role × resource × action the runner decides, in one place. Each route and socket handler calls
 * `authorize` with one of these cells; docs/api.md's Roles table is generated from this object
 * (`npm run docs:roles`) and a test fails when the two differ.
 *
 * The owner of a session is its creator; a run, tool call, receipt or approval belongs to the owner of
 * its session (not to whoever started it: an admin's call in a developer's session is still that
 * developer's to read).
 */
// One line per cell, so the object reads as the table it is.
// prettier-ignore
export const PERMISSIONS = {
  session: {
    list: rule(["GET /api/sessions"], "any", "any", "own", "any"),
    read: rule(["GET /api/sessions/:id", "socket session:join", "GET /api/sessions/:id/skills"], "any", "any", "own", "any", "viewers read everything; a developer sees only their own sessions"),
    skills: rule(["POST /api/sessions/:id/skills/:name", "DELETE /api/sessions/:id/skills/:name"], "any", "any", "own", "none", "turning a skill on or off narrows what the session may call; a manual skill needs the owner in the IDE or an operator"),
    create: rule(["POST /api/sessions"], "own", "own", "own", "none", "a session is always its creator's"),
    update: rule(["PATCH /api/sessions/:id"], "any", "any", "own", "none", "changing a session's autonomy"),
    yolo: rule(["PATCH /api/sessions/:id"], "any", "any", "none", "none", "autonomy above trusted after creation (yolo never asks): an operator's call"),
    restart: rule(["POST /api/sessions/:id/restart"], "any", "any", "own", "none", "a restart kills the session's background processes"),
    delete: rule(["DELETE /api/sessions/:id"], "any", "any", "own", "none", "operators can stop a runaway session"),
    download: rule(["GET /api/sessions/:id/download"], "own", "own", "own", "none", "a folder of the workspace as .tar.gz: the files are the owner's"),
  },
  toolCall: {
    list: rule(["GET /api/sessions/:id/tools"], "any", "any", "own", "any", "a session's tool surface (names and schemas)"),
    call: rule(["POST /api/sessions/:id/tools/:tool", "socket tool:call", "/mcp/:sessionId"], "any", "own", "own", "none", "a call runs code with the session owner's files and env; operators govern others' calls through approvals"),
  },
  terminal: {
    use: rule(
      ["socket terminal:open", "socket terminal:list", "socket terminal:attach", "socket terminal:input", "socket terminal:resize", "socket terminal:rename", "socket terminal:close"],
      "any",
      "own",
      "own",
      "none",
      "a shell in the owner's workspace, as toolCall call; only for a person signed in to the IDE (an API token never opens one)",
    ),
  },
  port: {
    use: rule(["GET /api/sessions/:id/ports", "/sessions/:id/ports/:port", "/sessions/:id/ports/:port/* (HTTP and WebSocket)"], "own", "own", "own", "none", "a server in the owner's workspace, in a browser tab; anyone else gets 404, as for a session that does not exist"),
  },
  run: {
    list: rule(["GET /api/runs"], "any", "any", "own", "any"),
    read: rule(["GET /api/runs/:id"], "any", "any", "own", "any"),
    logs: rule(["GET /api/runs/:id/logs", "GET /api/runs/:id/logs/times", "socket run:subscribe", "socket process:subscribe"], "any", "any", "own", "any"),
    share: rule(["POST /api/receipts/:id/share"], "any", "own", "own", "none", "a share link publishes the run's logs to anyone holding it: the owner decides"),
    unshare: rule(["DELETE /api/receipts/:id/share"], "any", "any", "own", "none", "pulling a link that leaks is always safe"),
    cancel: rule(["POST /api/runs/:id/cancel", "socket run:cancel"], "any", "any", "own", "none", "operators can stop a runaway run"),
  },
  receipt: {
    read: rule(["GET /api/receipts/:id"], "any", "any", "own", "any"),
    verify: rule(["POST /api/receipts/verify"], "any", "any", "any", "any", "checks a signature the caller supplies; reads nothing stored"),
    rotateKey: rule(["POST /api/receipts/keys/rotate"], "any", "none", "none", "none", "a new signing key for the runner that answers; the old one stays published, retired"),
  },
  approval: {
    list: rule(["GET /api/approvals"], "any", "any", "own", "own", "only operators and admins see everyone's parked calls (their texts may hold a script's content); a developer sees their own sessions'"),
    files: rule(["GET /api/approvals/:id/files"], "any", "any", "own", "own", "the files a parked call would change, as they are now (its diff): whoever sees the call"),
    decide: rule(["POST /api/approvals/:id"], "any", "any", "none", "none", "a developer sees their own sessions' parked calls but does not approve them"),
    cancel: rule(["POST /api/approvals/:id"], "own", "own", "own", "none", "{decision: \"cancel\"}: only whoever asked withdraws their parked call"),
  },
  skill: {
    list: rule(["GET /api/skills"], "any", "any", "any", "any"),
    read: rule(["GET /api/skills/:name"], "any", "any", "any", "any"),
    create: rule(["POST /api/skills"], "own", "own", "own", "none"),
    update: rule(["PUT /api/skills/:name"], "any", "any", "own", "none", "a skill created before owners were recorded has no owner: operators and admins only"),
    delete: rule(["DELETE /api/skills/:name"], "any", "any", "own", "none"),
    accept: rule(["POST /api/skills/:name/accept"], "any", "any", "none", "none", "accepting a drifted skill's stored content is an operator's review"),
  },
  policyRule: {
    list: rule(["GET /api/policy-rules"], "any", "any", "any", "any", "everyone can see why a call was denied"),
    create: rule(["POST /api/policy-rules"], "any", "any", "none", "none"),
    delete: rule(["DELETE /api/policy-rules/:id"], "any", "any", "none", "none"),
  },
  mcpServer: {
    list: rule(["GET /api/mcp-servers"], "any", "own", "own", "own", "user-scope servers: an admin sees every user's (to remove them)"),
    read: rule(["GET /api/mcp-servers/:id/pins"], "any", "any", "own", "own", "tool pins of a user-scope server; operators review schemas"),
    create: rule(["POST /api/mcp-servers (scope: user)"], "own", "own", "own", "none"),
    delete: rule(["DELETE /api/mcp-servers/:id"], "any", "own", "own", "none"),
    accept: rule(["POST /api/mcp-servers/:id/accept"], "any", "any", "none", "none", "accepting a changed tool schema is an operator's review"),
  },
  globalMcpServer: {
    list: rule(["GET /api/mcp-servers"], "any", "any", "any", "any"),
    read: rule(["GET /api/mcp-servers/:id/pins"], "any", "any", "any", "any"),
    create: rule(["POST /api/mcp-servers (scope: global)"], "any", "any", "none", "none", "a global server's tools reach every session"),
    delete: rule(["DELETE /api/mcp-servers/:id"], "any", "any", "none", "none"),
    accept: rule(["POST /api/mcp-servers/:id/accept"], "any", "any", "none", "none"),
  },
  user: {
    me: rule(["GET /api/me"], "any", "any", "any", "any", "who the caller is"),
    list: rule(["GET /api/users"], "any", "none", "none", "none"),
    create: rule(["POST /api/users"], "any", "none", "none", "none"),
    update: rule(["PATCH /api/users/:id"], "any", "none", "none", "none"),
    delete: rule(["DELETE /api/users/:id"], "any", "none", "none", "none"),
  },
  browserSession: {
    create: rule(["POST /api/browser-sessions"], "own", "own", "own", "own", "signing in mints the caller's own; a browser session cannot mint another"),
    list: rule(["GET /api/browser-sessions"], "any", "own", "own", "own"),
    revoke: rule(["DELETE /api/browser-sessions/:id", "DELETE /api/browser-sessions/current"], "any", "own", "own", "own", "signing out, or ending a lost browser's sign-in"),
  },
  token: {
    list: rule(["GET /api/tokens"], "any", "none", "none", "none"),
    create: rule(["POST /api/tokens"], "any", "none", "none", "none"),
    revoke: rule(["DELETE /api/tokens/:id"], "any", "none", "none", "none"),
  },
  metrics: {
    read: rule(["GET /metrics"], "any", "any", "any", "any", "counts only, no names or content; a scraper can use a viewer token"),
  },
  liveEvents: {
    "runs:subscribe": rule(["socket runs:subscribe"], "any", "any", "own", "own", "live run:status of every session for operators and admins; others get their own sessions' (a viewer reads runs through GET /api/runs)"),
    "approvals:subscribe": rule(["socket approvals:subscribe"], "any", "any", "own", "own", "approval events, filtered like GET /api/approvals"),
  },
} as const satisfies Record<string, Record<string, Rule>>;

export type Permissions = typeof PERMISSIONS;
export type Resource = keyof Permissions;
export type Action<R extends Resource> = keyof Permissions[R] & string;

export const RESOURCES = Object.keys(PERMISSIONS) as Resource[];
export { ROLES };

/** What an action is aimed at: its id (for the message) and its owner's user id (null: nobody's). */
export interface Target {
  id: string;
  ownerId: string | null;
}

/** A refusal on these is a 404 when the caller may not read the thing either: its existence is not leaked. */
const READ_ACTION: Partial<Record<Resource, string>> = {
  session: "read",
  toolCall: "list",
  run: "read",
  receipt: "read",
  approval: "list",
  mcpServer: "read",
  browserSession: "list",
};

const LABEL: Record<Resource, string> = {
  session: "Session",
  toolCall: "Session",
  run: "Run",
  receipt: "Receipt",
  approval: "Approval",
  skill: "Skill",
  policyRule: "Policy rule",
  mcpServer: "MCP server",
  globalMcpServer: "MCP server",
  user: "User",
  terminal: "Session",
  port: "Session",
  browserSession: "Browser session",
  token: "Token",
  metrics: "Metrics",
  liveEvents: "Live events",
};

export function ruleFor<R extends Resource>(resource: R, action: Action<R>): Rule {
  return (PERMISSIONS[resource] as Record<string, Rule>)[action]!;
}

/** The cell's verdict without throwing: true (allowed), or the access that was missing. */
export function allows<R extends Resource>(
  principal: Pick<Principal, "userId" | "role">,
  resource: R,
  action: Action<R>,
  target?: Target,
): boolean {
  const access = ruleFor(resource, action)[principal.role];
  if (access === "any") return true;
  if (access === "none") return false;
  return target === undefined || (target.ownerId !== null && target.ownerId === principal.userId);
}

/**
 * The one permission check: throws the AppError for 403 (or 404 where the caller may not even read the
 * target) unless `principal` may do `action` on `resource`. Without a target it answers for the kind of
 * thing: `"own"` means the caller may act on their own ones only, so a list must be filtered to them.
 */
export function authorize<R extends Resource>(
  principal: Pick<Principal, "userId" | "role">,
  resource: R,
  action: Action<R>,
  target?: Target,
): "any" | "own" {
  const access = ruleFor(resource, action)[principal.role];
  if (allows(principal, resource, action, target)) return access === "own" ? "own" : "any";
  const readAction = READ_ACTION[resource];
  if (target && readAction && !allows(principal, resource, readAction as Action<R>, target)) {
    throw new AppError({ code: "not_found", message: `${LABEL[resource]} not found: ${target.id}` });
  }
  const roles = ROLES.filter((role) => ruleFor(resource, action)[role] !== "none");
  const owners = ROLES.filter((role) => ruleFor(resource, action)[role] === "own");
  const anyone = ROLES.filter((role) => ruleFor(resource, action)[role] === "any");
  const what = `${resource} ${action}${target ? ` on ${target.id}` : ""}`;
  const message =
    access === "own"
      ? `${what} is only for its owner${anyone.length ? ` or the ${anyone.join(" or ")} role` : ""}; you are ${principal.role} and it is not yours`
      : `${what} needs the ${roles.join(" or ") || "(no)"} role${owners.length ? ` (${owners.join(", ")}: own only)` : ""}; you are ${principal.role}`;
  throw new AppError({ code: "forbidden", message });
}

/** The owner filter for a list: `{}` for `any`, the caller's id otherwise (Prisma `where` fragments build on it). */
export function listScope<R extends Resource>(
  principal: Pick<Principal, "userId" | "role">,
  resource: R,
  action: Action<R>,
): { ownerId?: string } {
  return authorize(principal, resource, action) === "own" ? { ownerId: principal.userId } : {};
}
