import { execFile } from "node:child_process";
import type { AgentConfig } from "../config";
import { asWorkspaceUser } from "../processes/launch";

const GIT_TIMEOUT_MS = 60_000;

/**
 * git for compete trees, as the workspace user (never the agent: the repository's config can name programs git
 * runs), with the repository's hooks and fsmonitor off and a fixed committer, so making a tree runs nothing of the
 * workspace's and the same tree gives the same commit content. Resolves with stdout as bytes (blobs are binary).
 */
export function runGit(root: string, config: AgentConfig, args: string[]): Promise<Buffer> {
  const launch = asWorkspaceUser(config, "git", [
    "-c",
    "safe.directory=*",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "user.name=Berth",
    "-c",
    "user.email=berth@localhost",
    "-C",
    root,
    ...args,
  ]);
  return new Promise((resolve, reject) => {
    execFile(
      launch.file,
      launch.args,
      {
        env: { ...config.baseEnv, GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" },
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
        encoding: "buffer",
      },
      (error, stdout, stderr) => (error ? reject(new Error(`git ${args[0]}: ${stderr.toString("utf8").trim() || error.message}`)) : resolve(stdout)),
    );
  });
}

/** git's output as text, trimmed (rev-parse, symbolic-ref). */
export async function gitText(root: string, config: AgentConfig, args: string[]): Promise<string> {
  return (await runGit(root, config, args)).toString("utf8").trim();
}
