import path from "node:path";
import { SKILLS_ROOT, WORKSPACE_ROOT } from "@berth/protocol";

export interface AgentConfig {
  /** Workspace root every tool path is confined to (BERTH_WORKSPACE, default /workspace). */
  workspace: string;
  /** The read-only root the session's skills are mounted at (BERTH_SKILLS, default /skills; see sync-skills.ts). */
  skillsRoot: string;
  /** Where background process logs live (BERTH_AGENT_STATE, default /tmp/berth-agent). */
  stateDir: string;
  /** cgroup v2 memory events, read to tell an OOM kill from any other SIGKILL (BERTH_MEMORY_EVENTS). */
  memoryEventsPath: string;
  /** cgroup v1 memory.oom_control, whose oom_kill counter does the same there (BERTH_OOM_CONTROL). */
  oomControlPath: string;
  /**
   * The user workspace code runs as (BERTH_WORKSPACE_USER, e.g. 1000:1000, set by the image and the driver) when
   * the agent runs as root and keeps itself out of that code's reach (separate-from-workspace.ts); null otherwise
   * (the agent on a host, in tests), and programs then run as the agent's own user.
   */
  workspaceUser: { uid: number; gid: number } | null;
  /** The clean environment every spawned process starts from (never the runner's). */
  baseEnv: Record<string, string>;
  /** The PTY helper terminals run under (BERTH_PTY_HELPER, default /opt/berth/berth-pty.py, see docker/sandbox). */
  ptyHelper: string;
}

const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Parses the agent's environment once at start; nothing else reads process.env. */
export function loadAgentConfig(env: NodeJS.ProcessEnv = process.env, opts: { runsAsRoot?: boolean } = {}): AgentConfig {
  const value = (name: string, fallback: string) => {
    const v = env[name];
    return v === undefined || v === "" ? fallback : v;
  };
  const workspace = path.resolve(value("BERTH_WORKSPACE", WORKSPACE_ROOT));
  return {
    workspace,
    skillsRoot: path.resolve(value("BERTH_SKILLS", SKILLS_ROOT)),
    stateDir: path.resolve(value("BERTH_AGENT_STATE", "/tmp/berth-agent")),
    memoryEventsPath: value("BERTH_MEMORY_EVENTS", "/sys/fs/cgroup/memory.events"),
    oomControlPath: value("BERTH_OOM_CONTROL", "/sys/fs/cgroup/memory/memory.oom_control"),
    workspaceUser: opts.runsAsRoot && env.BERTH_WORKSPACE_USER ? parseUser(env.BERTH_WORKSPACE_USER) : null,
    ptyHelper: value("BERTH_PTY_HELPER", "/opt/berth/berth-pty.py"),
    baseEnv: {
      // The container's own PATH (the image's), so interpreters installed there are found.
      PATH: value("PATH", DEFAULT_PATH),
      // The root fs is read-only: HOME falls back to the writable workspace.
      HOME: value("HOME", workspace),
      LANG: "C.UTF-8",
      TERM: "dumb",
    },
  };
}

function parseUser(text: string): { uid: number; gid: number } {
  const match = /^(\d+):(\d+)$/.exec(text);
  const uid = Number(match?.[1]);
  const gid = Number(match?.[2]);
  // Root as the workspace user would hand workspace code the agent's own powers.
  if (!match || uid === 0 || gid === 0) {
    throw new Error(`BERTH_WORKSPACE_USER must be uid:gid of a non-root user (got ${JSON.stringify(text)})`);
  }
  return { uid, gid };
}
