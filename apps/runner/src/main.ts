import fs from "node:fs";
import { createDatabase } from "@berth/db";
import { parseEnv } from "./env";
import { ensureAdminToken } from "./auth/tokens";
import { buildServer } from "./http/build-server";
import { createDockerHealth } from "./docker-health";

/** Prints one line saying what is wrong and what to do, then exits. */
function fail(message: string): never {
  process.stderr.write(`berth-runner: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const parsed = parseEnv(process.env);
  if (!parsed.ok) fail(`bad configuration: ${parsed.errors.join("; ")}`);
  const { env } = parsed;

  try {
    fs.mkdirSync(env.dataDir, { recursive: true });
    fs.accessSync(env.dataDir, fs.constants.W_OK);
  } catch {
    fail(`data dir ${env.dataDir} is not writable: set BERTH_DATA_DIR to a writable folder`);
  }

  const db = await createDatabase({ dataDir: env.dataDir, databaseUrl: env.DATABASE_URL });
  const admin = await ensureAdminToken(db, { dataDir: env.dataDir, envToken: env.BERTH_ADMIN_TOKEN });
  const app = buildServer({ db, dockerHealth: createDockerHealth(), logLevel: env.BERTH_LOG_LEVEL });

  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    await app.close();
    await db.$disconnect();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  try {
    await app.listen({ host: env.BERTH_HOST, port: env.BERTH_RUNNER_PORT });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") fail(`port ${env.BERTH_RUNNER_PORT} on ${env.BERTH_HOST} is in use: stop what holds it or set BERTH_RUNNER_PORT`);
    throw error;
  }
  const where = admin.source === "env" ? "BERTH_ADMIN_TOKEN" : admin.file;
  process.stdout.write(`berth-runner ready on http://${env.BERTH_HOST}:${env.BERTH_RUNNER_PORT} (admin token: ${where})\n`);
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
