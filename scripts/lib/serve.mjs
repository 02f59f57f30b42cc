// Starts the runner and the web app as children in our own process group (server.mjs runs Next in
// process, so nothing forks further), waits until both answer, and stops both together. Being in our
// group means a signal to the group — Ctrl-C, or Playwright stopping its webServer — reaches them too,
// so no server outlives the command that started it.
import fs from "node:fs";
import path from "node:path";
import { spawn, spawnSync } from "node:child_process";

export async function waitForHttp(url, child, name, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${name} did not answer on ${url} within ${timeoutMs / 1000} s`);
}

export function prefixed(stream, name, out) {
  let buffer = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) out.write(`[${name}] ${line}\n`);
  });
}

/** Applies pending migrations to the database the runner will use (a no-op when up to date). */
async function migrate(root, env) {
  if (/^postgres(ql)?:/.test(env.DATABASE_URL ?? "")) {
    const { migratePostgres } = await import("./migrate-postgres.mjs");
    await migratePostgres(root, env.DATABASE_URL);
    return;
  }
  const result = spawnSync("npx", ["prisma", "migrate", "deploy"], { cwd: root, env: { ...env, DATABASE_URL: "" }, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`database migration failed:\n${(result.stderr || result.stdout).trim()}`);
}

export async function startServers(root, env) {
  fs.mkdirSync(path.resolve(root, env.BERTH_DATA_DIR || ".berth"), { recursive: true });
  await migrate(root, env);
  const host = env.BERTH_HOST || "127.0.0.1";
  const runnerPort = env.BERTH_RUNNER_PORT || "4000";
  const webPort = env.BERTH_WEB_PORT || "3000";
  const children = [];
  const spawnGroup = (name, args, cwd) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...env, NEXT_TELEMETRY_DISABLED: "1" }, stdio: ["ignore", "pipe", "pipe"] });
    prefixed(child.stdout, name, process.stdout);
    prefixed(child.stderr, name, process.stderr);
    children.push(child);
    return child;
  };
  const stop = () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  };

  const runner = spawnGroup("runner", [path.join(root, "apps/runner/dist/main.mjs")], root);
  try {
    await waitForHttp(`http://${host}:${runnerPort}/healthz`, runner, "runner", 30_000);
    const web = spawnGroup("web", ["server.mjs"], path.join(root, "apps/web"));
    await waitForHttp(`http://${host}:${webPort}/`, web, "web", 60_000);
  } catch (error) {
    stop();
    throw error;
  }
  const tokenFile = path.join(path.resolve(root, env.BERTH_DATA_DIR || ".berth"), "admin-token");
  return {
    children,
    stop,
    urls: { web: `http://${host}:${webPort}`, runner: `http://${host}:${runnerPort}` },
    tokenWhere: env.BERTH_ADMIN_TOKEN ? "BERTH_ADMIN_TOKEN" : fs.existsSync(tokenFile) ? tokenFile : "the data dir",
  };
}
