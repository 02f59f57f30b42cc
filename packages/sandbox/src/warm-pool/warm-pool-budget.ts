/**
 * What one idle warm container costs the host: the sandbox bench measures about 31 MiB (its cgroup, as
 * `docker stats` counts it, p95), rounded up for the agent's own growth and the engine's bookkeeping.
 */
export const WARM_CONTAINER_BYTES = 48 * 1024 ** 2;

/** However large the budget, the pool grows to no more than this many (each start costs the engine CPU). */
export const MAX_WARM_POOL = 64;

/**
 * The default memory budget of the warm pool's growth: what one session's container may use (its memory
 * limit), and never more than an eighth of the host. With the 1 GiB limit that is 21 warm containers.
 */
export function defaultWarmPoolMemory(limits: { containerMemoryBytes: number; hostMemoryBytes: number }): number {
  return Math.min(limits.containerMemoryBytes, Math.floor(limits.hostMemoryBytes / 8));
}

/** The most warm containers a pool of `base` grows to within `budgetBytes`; never below its base. */
export function warmPoolMaxSize(base: number, budgetBytes: number): number {
  if (base === 0) return 0;
  return Math.max(base, Math.min(MAX_WARM_POOL, Math.floor(budgetBytes / WARM_CONTAINER_BYTES)));
}
