// Small process helpers for the setup scripts (plain Node, no dependencies: they run before npm install).
import { spawnSync } from "node:child_process";

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

/** Runs a command and reports success instead of throwing. */
export function tryRun(cmd, args, { env, timeoutMs } = {}) {
  const result = spawnSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env, timeout: timeoutMs, encoding: "utf8" });
  return { ok: !result.error && result.status === 0, stdout: result.stdout ?? "", stderr: result.stderr ?? "" };
}

/** Prints a step with its duration, so a long first setup shows where the time goes. */
export async function step(label, fn) {
  const started = Date.now();
  process.stdout.write(`• ${label} …\n`);
  const value = await fn();
  process.stdout.write(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return value;
}
