import fs from "node:fs";
import { AppError } from "@berth/protocol";
import { parseEnv } from "./env";
import { createRunner } from "./create-runner";

/** Prints one line saying what is wrong and what to do, then exits. */
function fail(message: string): never {
  process.stderr.write(`berth-runner: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const parsed = parseEnv(process.env);
  if (!parsed.ok) fail(`bad configuration: ${parsed.errors.join("; ")}`);
  const { env } = parsed;
  // Whatever the runner creates (the data dir, logs, keys) is for its own user only.
  process.umask(0o077);
  try {
    fs.mkdirSync(env.dataDir, { recursive: true, mode: 0o700 });
    fs.accessSync(env.dataDir, fs.constants.W_OK);
  } catch {
    fail(`data dir ${env.dataDir} is not writable: set BERTH_DATA_DIR to a writable folder`);
  }

  let runner;
  try {
    runner = await createRunner(env);
  } catch (error) {
    if (AppError.isInstance(error)) fail(error.message);
    throw error;
  }
  const stop = (signal: string) => {
    process.stdout.write(`berth-runner: ${signal}, shutting down\n`);
    setTimeout(() => process.exit(1), 10_000).unref();
    runner.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  const note = runner.interruptedOnStart ? `; ${runner.interruptedOnStart} run(s) from before ended as interrupted and sealed` : "";
  process.stdout.write(`berth-runner ready on ${runner.url} (admin token: ${runner.adminTokenWhere}${note})\n`);
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
