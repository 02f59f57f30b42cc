import type { Repositories } from "@berth/db";

/**
 * Makes `runner` a session's owner in the database, as a runner that created or adopted it is (its Runner row
 * and the session's lease): for forwarding tests and benches that pick the owner themselves. A claim dated
 * past any lease moves it whoever holds it now, the compare-and-set a failover makes.
 */
export async function setSessionOwner(repos: Pick<Repositories, "runners" | "leases">, sessionId: string, runner: { id: string; url: string }): Promise<void> {
  await repos.runners.register({ id: runner.id, url: runner.url, at: new Date() });
  const lease = await repos.leases.of(sessionId);
  if (!lease) throw new Error(`setSessionOwner: no live session ${sessionId}`);
  if (lease.runnerId === runner.id && lease.expiresAt && lease.expiresAt.getTime() > Date.now() + 60_000) return;
  const moved = await repos.leases.takeOver(sessionId, {
    from: lease.runnerId,
    to: runner.id,
    now: new Date(Date.now() + 365 * 86_400_000),
    expiresAt: new Date(Date.now() + 3_600_000),
  });
  if (!moved) throw new Error(`setSessionOwner: session ${sessionId} changed hands while it was moved to ${runner.id}`);
}
