import path from "node:path";

export interface AgentConfig {
  /** Workspace root every tool path is confined to (BERTH_WORKSPACE, default /workspace). */
  workspace: string;
  /** Where background process logs live (BERTH_AGENT_STATE, default /tmp/berth-agent). */
  stateDir: string;
  /** cgroup v2 memory events, read to tell an OOM kill from any other SIGKILL (BERTH_MEMORY_EVENTS). */
  memoryEventsPath: string;
  /** The clean environment every spawned process starts from (never the runner's). */
  baseEnv: Record<string, string>;
  /** The PTY helper terminals run under (BERTH_PTY_HELPER, default /opt/berth/berth-pty.py, see docker/sandbox). */
  ptyHelper: string;
}

const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Parses the agent's environment once at start; nothing else reads process.env. */
export function loadAgentConfig(env: NodeJS.ProcessEnv = process.env): AgentConfig {
  const value = (name: string, fallback: string) => {
    const v = env[name];
    return v === undefined || v === "" ? fallback : v;
  };
  const workspace = path.resolve(value("BERTH_WORKSPACE", "/workspace"));
  return {
    workspace,
    stateDir: path.resolve(value("BERTH_AGENT_STATE", "/tmp/berth-agent")),
    memoryEventsPath: value("BERTH_MEMORY_EVENTS", "/sys/fs/cgroup/memory.events"),
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
