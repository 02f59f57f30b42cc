// `npm start`: set up what is missing, then serve the IDE on http://127.0.0.1:3000 (runner on :4000).
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setup, SetupError } from "./lib/setup.mjs";
import { startServers } from "./lib/serve.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = path.resolve(root, process.env.BERTH_DATA_DIR || ".berth");
const started = Date.now();

/** Fails fast, before minutes of setup, when a port we need is taken. */
function ensurePortFree(host, port, variable) {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", (error) =>
      reject(new SetupError(error.code === "EADDRINUSE" ? `port ${port} on ${host} is in use: stop what holds it or set ${variable}` : `cannot listen on ${host}:${port}: ${error.message}`)),
    );
    probe.listen(port, host, () => probe.close(resolve));
  });
}

try {
  const host = process.env.BERTH_HOST || "127.0.0.1";
  await ensurePortFree(host, Number(process.env.BERTH_RUNNER_PORT || 4000), "BERTH_RUNNER_PORT");
  await ensurePortFree(host, Number(process.env.BERTH_WEB_PORT || 3000), "BERTH_WEB_PORT");
  await setup(root, { dataDir });
  const servers = await startServers(root, { ...process.env, BERTH_DATA_DIR: dataDir });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `\nBerth is ready in ${seconds} s\n  IDE:    ${servers.urls.web}\n  Runner: ${servers.urls.runner}\n  Admin token: ${servers.tokenWhere}\nCtrl-C stops both.\n\n`,
  );
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write("\nstopping runner and web app …\n");
    servers.stop();
    setTimeout(() => process.exit(0), 1500).unref();
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  for (const child of servers.children) {
    child.on("exit", (code) => {
      if (stopping) return;
      process.stderr.write(`a server exited (code ${code}); stopping the other\n`);
      shutdown();
      process.exitCode = 1;
    });
  }
} catch (error) {
  process.stderr.write(`npm start: ${error instanceof SetupError ? error.message : (error.stack ?? error)}\n`);
  process.exit(1);
}
