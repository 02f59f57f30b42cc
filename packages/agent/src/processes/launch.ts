import type { AgentConfig } from "../config";

export interface Launch {
  file: string;
  args: string[];
}

/** No capability survives into what the agent starts: inheritable, ambient and bounding sets all cleared. */
export const NO_CAPS = ["--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all"];

/**
 * How to start workspace code (bash, run_script, terminals): through setpriv as the workspace user with every
 * uid, gid and group set to it and no capabilities, so it can neither trace the agent (real uid 0) nor regain
 * anything. Node's own spawn `uid` option cannot do it: the agent's effective uid is already the workspace
 * user's (for file ownership), so its effective capabilities are empty and setuid() in the child fails;
 * setpriv raises them from the permitted set the real root uid keeps.
 */
export function asWorkspaceUser(config: AgentConfig, file: string, args: string[]): Launch {
  const user = config.workspaceUser;
  if (!user) return { file, args };
  return {
    file: "setpriv",
    args: [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--init-groups", ...NO_CAPS, "--", file, ...args],
  };
}

/**
 * How to start the agent's own helpers that read the workspace (ripgrep): with the agent's identity (real uid 0,
 * file access as the workspace user) but no capabilities. Not as the workspace user: workspace code could then
 * write into the helper's output pipe through /proc/<pid>/fd and forge what the agent reads.
 */
export function asAgentHelper(config: AgentConfig, file: string, args: string[]): Launch {
  if (!config.workspaceUser) return { file, args };
  return { file: "setpriv", args: [...NO_CAPS, "--", file, ...args] };
}
