import { execFile } from "node:child_process";
import type { AgentConfig } from "../config";
import { asWorkspaceUser } from "../processes/launch";

const GIT_TIMEOUT_MS = 60_000;
const GIT_MAX_OUTPUT = 64 * 1024 * 1024;

/** Hooks and fsmonitor off, no signing, one fixed committer: making a tree runs nothing of the workspace's. */
const SETTINGS = ["safe.directory=*", "core.fsmonitor=false", "core.hooksPath=/dev/null", "commit.gpgsign=false", "user.name=Berth", "user.email=berth@localhost"].flatMap((setting) => ["-c", setting]);

/**
 * git for compete trees, as the workspace user (never the agent: the repository's config can name programs git
 * runs). Resolves with stdout as bytes (blobs are binary); a failure names the git command and what it printed.
 */
export function runGit(root: string, config: AgentConfig, args: string[]): Promise<Buffer> {
  const { file, args: argv } = asWorkspaceUser(config, "git", [...SETTINGS, "-C", root, ...args]);
  const env = { ...config.baseEnv, GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
  return new Promise((resolve, reject) => {
    execFile(file, argv, { env, timeout: GIT_TIMEOUT_MS, maxBuffer: GIT_MAX_OUTPUT, encoding: "buffer" }, (error, stdout, stderr) =>
      error ? reject(new Error(`git ${args[0]}: ${stderr.toString("utf8").trim() || error.message}`)) : resolve(stdout),
    );
  });
}

/** git's output as text, trimmed (rev-parse, symbolic-ref). */
export async function gitText(root: string, config: AgentConfig, args: string[]): Promise<string> {
  return (await runGit(root, config, args)).toString("utf8").trim();
}
