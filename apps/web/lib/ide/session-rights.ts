// What the signed-in person may do to the session the IDE shows, and how a live session:status changes
// what the toolbar shows. Pure: the page knows the person from the browser session, the runner enforces.
import { AUTONOMY_OPTIONS, DEVELOPER_MAX_AUTONOMY, type Autonomy, type Session } from "../api";
import type { SessionStatusEvent } from "../socket";

/** The signed-in person (the page knows them from the browser session). */
export type IdeUser = { userId: string; name: string; role: string };

export type SessionRights = {
  /** Operators and admins decide approvals and may set any autonomy. */
  isOperator: boolean;
  canChangeAutonomy: boolean;
  autonomyAllowed: (level: Autonomy) => boolean;
};

/** A developer may change their own session's autonomy up to DEVELOPER_MAX_AUTONOMY; an operator any session's, to any level. */
export function sessionRights(me: IdeUser | undefined, session: Pick<Session, "ownerId"> | undefined): SessionRights {
  const isOperator = me?.role === "operator" || me?.role === "admin";
  const isOwner = !!me && !!session?.ownerId && session.ownerId === me.userId;
  return {
    isOperator,
    canChangeAutonomy: !!session && (isOperator || (isOwner && me?.role === "developer")),
    autonomyAllowed: (level) => isOperator || AUTONOMY_OPTIONS.indexOf(level) <= AUTONOMY_OPTIONS.indexOf(DEVELOPER_MAX_AUTONOMY),
  };
}

/** The session after a session:status event (its status, why it ended, and autonomy when the event carries it). */
export function withSessionStatus<S extends Session>(session: S, event: SessionStatusEvent): S {
  return {
    ...session,
    status: event.status,
    terminationCause: event.terminationCause ?? session.terminationCause,
    ...(event.autonomy ? { autonomy: event.autonomy as Autonomy, autonomyChangedBy: event.autonomyChangedBy ?? null } : {}),
  };
}
