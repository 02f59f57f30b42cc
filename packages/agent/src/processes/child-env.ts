import type { AgentConfig } from "../config";

/** The environment of every spawned process: the clean base, then the session's, then the call's own. */
export function childEnv(
  config: AgentConfig,
  sessionEnv: Record<string, string>,
  extra: Record<string, string> = {},
): Record<string, string> {
  return { ...config.baseEnv, ...sessionEnv, ...extra };
}
