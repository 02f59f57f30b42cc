import { describe, expect, it } from "vitest";
import type { Session } from "../api";
import type { SessionStatusEvent } from "../socket";
import { sessionRights, withSessionStatus } from "./session-rights";

const session = { id: "s1", name: "demo", status: "ready", autonomy: "default", network: "none", ownerId: "u1", terminationCause: null, autonomyChangedBy: null, createdAt: "2026-01-01T00:00:00Z" } as Session;
const event = (fields: Partial<SessionStatusEvent>) => ({ sessionId: "s1", status: "ready", terminationCause: null, ...fields }) as SessionStatusEvent;

describe("session rights", () => {
  it("the owner who is a developer changes autonomy up to trusted; yolo is an operator's", () => {
    const rights = sessionRights({ userId: "u1", name: "Dev", role: "developer" }, session);
    expect(rights).toMatchObject({ isOperator: false, canChangeAutonomy: true });
    expect(rights.autonomyAllowed("trusted")).toBe(true);
    expect(rights.autonomyAllowed("yolo")).toBe(false);
  });

  it("another developer or a viewer may not change it; an operator or admin may, to any level", () => {
    expect(sessionRights({ userId: "u2", name: "Other", role: "developer" }, session).canChangeAutonomy).toBe(false);
    expect(sessionRights({ userId: "u1", name: "Viewer", role: "viewer" }, session).canChangeAutonomy).toBe(false);
    for (const role of ["operator", "admin"]) {
      const rights = sessionRights({ userId: "u9", name: "Op", role }, session);
      expect(rights).toMatchObject({ isOperator: true, canChangeAutonomy: true });
      expect(rights.autonomyAllowed("yolo")).toBe(true);
    }
    expect(sessionRights(undefined, session).canChangeAutonomy).toBe(false);
    expect(sessionRights({ userId: "u9", name: "Op", role: "operator" }, undefined).canChangeAutonomy).toBe(false);
  });
});

describe("withSessionStatus", () => {
  it("takes the status and cause, keeps the old cause when the event has none, and autonomy only when sent", () => {
    const stopped = withSessionStatus({ ...session, terminationCause: "idle_timeout" }, event({ status: "stopped" }));
    expect(stopped).toMatchObject({ status: "stopped", terminationCause: "idle_timeout", autonomy: "default" });
    const changed = withSessionStatus(session, event({ autonomy: "trusted", autonomyChangedBy: "Op" }));
    expect(changed).toMatchObject({ autonomy: "trusted", autonomyChangedBy: "Op" });
    expect(withSessionStatus(session, event({ autonomy: "trusted" })).autonomyChangedBy).toBeNull();
  });
});
