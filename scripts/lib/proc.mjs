// Small process helpers for the setup scripts (plain Node, no dependencies: they run before npm install).
import { spawn, spawnSync } from "node:child_process";

export class SetupError extends Error {}

/** Runs a command and throws with its stderr when it fails. */
export function run(cmd, args, { inherit = false, env, cwd, timeoutMs } = {}) {
  const result = spawnSync(cmd, args, {
    stdio: inherit ? "inherit" : ["ignore", "pipe", "pipe"],
    env,
    cwd,
    timeout: timeoutMs,
    encoding: "utf8",
  });
  if (result.error) throw new SetupError(`${cmd} ${args.join(" ")}: ${result.error.message}`);
  if (result.status !== 0) {
    const detail = inherit ? "" : `\n${(result.stderr || result.stdout || "").trim().split("\n").slice(-15).join("\n")}`;
    throw new SetupError(`${cmd} ${args.slice(0, 3).join(" ")} failed (exit ${result.status})${detail}`);
  }
  return result.stdout ?? "";
}

/** `run` without blocking, so setup steps that do not depend on each other overlap (npm ci and debootstrap). */
export function runAsync(cmd, args, { inherit = false, env, cwd } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: inherit ? "inherit" : ["ignore", "pipe", "pipe"], env, cwd });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
    child.once("error", (error) => reject(new SetupError(`${cmd} ${args.join(" ")}: ${error.message}`)));
    child.once("close", (status) => {
      if (status === 0) return resolve(stdout);
      const detail = inherit ? "" : `\n${(stderr || stdout).trim().split("\n").slice(-15).join("\n")}`;
      reject(new SetupError(`${cmd} ${args.slice(0, 3).join(" ")} failed (exit ${status})${detail}`));
    });
  });
}

/** Runs a command and reports success instead of throwing. */
export function tryRun(cmd, args, { env, timeoutMs } = {}) {
  const result = spawnSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env, timeout: timeoutMs, encoding: "utf8" });
  return { ok: !result.error && result.status === 0, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

/**
 * Prints a step with its duration, so a long first setup shows where the time goes. The end line names the
 * step again: steps that run side by side finish in any order.
 */
export async function step(label, fn) {
  const started = Date.now();
  process.stdout.write(`• ${label} …\n`);
  const value = await fn();
  process.stdout.write(`✓ ${label} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  return value;
}
