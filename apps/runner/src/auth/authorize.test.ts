import { describe, expect, it } from "vitest";
import { AppError } from "@berth/protocol";
import { PERMISSIONS, RESOURCES, ROLES, authorize, listScope, type Action, type Resource } from "./authorize";
import type { Role } from "./tokens";

/**
 * The table as the team agreed it, written out again by hand so a change to PERMISSIONS has to change
 * this too: per action, one letter per role in the order admin, operator, developer, viewer —
 * A = anyone's, O = own only, - = refused.
 */
const EXPECTED: { [R in Resource]: Record<Action<R>, string> } = {
  session: { list: "AAOA", read: "AAOA", create: "OOO-", update: "AAO-", yolo: "AA--", restart: "AAO-", delete: "AAO-", download: "OOO-", skills: "AAO-" },
  toolCall: { list: "AAOA", call: "AOO-" },
  terminal: { use: "AOO-" },
  port: { use: "OOO-" },
  run: { list: "AAOA", read: "AAOA", logs: "AAOA", share: "AOO-", unshare: "AAO-", cancel: "AAO-" },
  receipt: { read: "AAOA", verify: "AAAA", rotateKey: "A---" },
  approval: { list: "AAOO", files: "AAOO", decide: "AA--", cancel: "OOO-" },
  skill: { list: "AAAA", read: "AAAA", create: "OOO-", update: "AAO-", delete: "AAO-", accept: "AA--" },
  policyRule: { list: "AAAA", create: "AA--", delete: "AA--" },
  mcpServer: { list: "AOOO", read: "AAOO", create: "OOO-", delete: "AOO-", accept: "AA--" },
  globalMcpServer: { list: "AAAA", read: "AAAA", create: "AA--", delete: "AA--", accept: "AA--" },
  user: { me: "AAAA", list: "A---", create: "A---", update: "A---", delete: "A---" },
  browserSession: { create: "OOOO", list: "AOOO", revoke: "AOOO" },
  token: { list: "A---", create: "A---", revoke: "A---" },
  metrics: { read: "AAAA" },
  liveEvents: { "runs:subscribe": "AAOO", "approvals:subscribe": "AAOO" },
};

/** Resources whose refusal hides existence from a caller who may not read the target. */
const HIDDEN_BY: Partial<Record<Resource, string>> = {
  session: "read",
  toolCall: "list",
  run: "read",
  receipt: "read",
  approval: "list",
  mcpServer: "read",
  browserSession: "list",
};

const principal = (role: Role) => ({ userId: `user_${role}`, role });
const own = (role: Role) => ({ id: "thing_1", ownerId: `user_${role}` });
const others = { id: "thing_2", ownerId: "user_someone_else" };
const ownerless = { id: "thing_3", ownerId: null };

function outcome(run: () => unknown): "allowed" | 403 | 404 {
  try {
    run();
    return "allowed";
  } catch (error) {
    if (!AppError.isInstance(error)) throw error;
    expect(["forbidden", "not_found"]).toContain(error.code);
    return error.code === "forbidden" ? 403 : 404;
  }
}

const cells = RESOURCES.flatMap((resource) =>
  Object.keys(PERMISSIONS[resource]).flatMap((action) =>
    ROLES.map((role, index) => ({ resource, action: action as Action<typeof resource>, role, index })),
  ),
);

describe("authorize", () => {
  it("has exactly the resources and actions the team agreed, no more and no fewer", () => {
    expect(Object.fromEntries(RESOURCES.map((r) => [r, Object.keys(PERMISSIONS[r]).sort()]))).toEqual(
      Object.fromEntries(Object.entries(EXPECTED).map(([r, actions]) => [r, Object.keys(actions).sort()])),
    );
  });

  it.each(cells)(
    "$resource $action as $role: own, another's and nobody's target",
    ({ resource, action, role, index }) => {
      const letter = (EXPECTED[resource] as Record<string, string>)[action]![index];
      const who = principal(role);
      // A refusal is a 404 where the resource hides existence and the caller may not read the target either.
      const readLetter = HIDDEN_BY[resource]
        ? (EXPECTED[resource] as Record<string, string>)[HIDDEN_BY[resource]]![index]
        : undefined;
      const refusal = (isOwn: boolean): 403 | 404 =>
        readLetter === undefined || readLetter === "A" || (readLetter === "O" && isOwn) ? 403 : 404;
      // Own target: allowed for A and O.
      expect(outcome(() => authorize(who, resource, action, own(role)))).toBe(
        letter === "-" ? refusal(true) : "allowed",
      );
      // Someone else's: only A.
      expect(outcome(() => authorize(who, resource, action, others))).toBe(letter === "A" ? "allowed" : refusal(false));
      // Nobody's (a skill from before owners were recorded): only A.
      expect(outcome(() => authorize(who, resource, action, ownerless))).toBe(
        letter === "A" ? "allowed" : refusal(false),
      );
      // No target: the kind of thing; "own" tells a list to filter.
      if (letter === "-") expect(outcome(() => authorize(who, resource, action))).toBe(403);
      else expect(authorize(who, resource, action)).toBe(letter === "A" ? "any" : "own");
    },
  );

  it("closes the holes the outside campaign found (issue 14 item 6)", () => {
    const developer = principal("developer");
    const viewer = principal("viewer");
    // A developer lists only their own sessions' approvals.
    expect(listScope(developer, "approval", "list")).toEqual({ ownerId: "user_developer" });
    // A viewer restarts nobody's session and shares or unshares nobody's run.
    expect(outcome(() => authorize(viewer, "session", "restart", others))).toBe(403);
    expect(outcome(() => authorize(viewer, "run", "share", others))).toBe(403);
    expect(outcome(() => authorize(viewer, "run", "unshare", others))).toBe(403);
    // A developer cannot rewrite or delete another user's skill.
    expect(outcome(() => authorize(developer, "skill", "update", others))).toBe(403);
    expect(outcome(() => authorize(developer, "skill", "delete", others))).toBe(403);
    // runs:subscribe is filtered to a developer's own sessions.
    expect(listScope(developer, "liveEvents", "runs:subscribe")).toEqual({ ownerId: "user_developer" });
    // Another developer's session is a 404, not a 403.
    expect(outcome(() => authorize(developer, "session", "restart", others))).toBe(404);
  });

  it("names the resource, the action, who may and the caller's role in a 403", () => {
    expect(() => authorize(principal("viewer"), "session", "restart", others)).toThrow(
      /session restart on thing_2 needs the admin or operator or developer role \(developer: own only\); you are viewer/,
    );
    expect(() => authorize(principal("developer"), "skill", "update", others)).toThrow(
      /skill update on thing_2 is only for its owner or the admin or operator role; you are developer and it is not yours/,
    );
    expect(() => authorize(principal("developer"), "session", "read", others)).toThrow(/Session not found: thing_2/);
  });
});
