import type { SessionRepository } from "@berth/db";

/** The room of a developer's `runs:subscribe` (only their own sessions' run:status). */
export const ownRunsRoom = (userId: string) => `runs:owner:${userId}`;
/** The room of a developer's `approvals:subscribe` (only their own sessions' approval events). */
export const ownApprovalsRoom = (userId: string) => `approvals:owner:${userId}`;

const MAX_CACHED = 10_000;

/**
 * Who owns a session, for routing live events to owners' rooms. A session's owner never changes, so the
 * answer is cached; one promise per session keeps that session's events in the order they were emitted.
 */
export class SessionOwners {
  readonly #cache = new Map<string, Promise<string | null>>();

  constructor(private readonly sessions: Pick<SessionRepository, "ownerOf">) {}

  of(sessionId: string): Promise<string | null> {
    let owner = this.#cache.get(sessionId);
    if (!owner) {
      if (this.#cache.size >= MAX_CACHED) this.#cache.clear();
      owner = this.sessions.ownerOf(sessionId);
      // A failed lookup is not remembered: the next event asks again.
      owner.catch(() => this.#cache.delete(sessionId));
      this.#cache.set(sessionId, owner);
    }
    return owner;
  }
}
