// Serves an already-built Berth (no setup): used by Playwright's webServer and by benchmarks.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServers } from "./lib/serve.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const servers = await startServers(root, process.env);
process.stdout.write(`serving ${servers.urls.web} (runner ${servers.urls.runner})\n`);
const shutdown = () => {
  servers.stop();
  setTimeout(() => process.exit(0), 1000).unref();
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
