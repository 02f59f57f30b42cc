/** What placement knows of a host at the moment a session is placed. */
export interface HostLoad {
  name: string;
  /** Sessions starting or running there now. */
  sessions: number;
  maxSessions: number;
  egress: boolean;
}

/**
 * The host with the most free session slots that may take the session (egress where it is asked for); ties go to
 * the host listed first, so placement is deterministic. Null when none has room, with `reason` saying why.
 */
export function pickHost(hosts: readonly HostLoad[], wantsEgress: boolean): { host: HostLoad } | { host: null; reason: string } {
  let best: HostLoad | null = null;
  for (const host of hosts) {
    if (wantsEgress && !host.egress) continue;
    if (host.sessions >= host.maxSessions) continue;
    if (!best || host.maxSessions - host.sessions > best.maxSessions - best.sessions) best = host;
  }
  if (best) return { host: best };
  const eligible = hosts.filter((h) => !wantsEgress || h.egress);
  if (eligible.length === 0) return { host: null, reason: "no Docker host allows network egress (egress=1 in BERTH_DOCKER_HOSTS)" };
  return {
    host: null,
    reason: `every Docker host is full: ${eligible.map((h) => `${h.name} ${h.sessions}/${h.maxSessions}`).join(", ")}`,
  };
}
