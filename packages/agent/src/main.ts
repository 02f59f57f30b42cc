// berth-agent: the program each session container runs. JSON-RPC on stdin/stdout, its own log on stderr.
import { loadAgentConfig } from "./config";
import { separateFromWorkspace } from "./processes/separate-from-workspace";
import { startAgentServer } from "./rpc";

const log = (message: string) => process.stderr.write(`berth-agent: ${message}\n`);

// stdout carries only protocol lines: anything a library prints goes to stderr instead.
console.log = console.info = console.debug = (...parts: unknown[]) => log(parts.map(String).join(" "));

process.on("uncaughtException", (error) => log(`uncaught: ${error.stack ?? error.message}`));
process.on("unhandledRejection", (reason) =>
  log(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`),
);
// The runner went away mid-write: nothing left to talk to.
process.stdout.on("error", () => process.exit(0));

let config;
try {
  config = loadAgentConfig(process.env, { runsAsRoot: process.getuid?.() === 0 });
} catch (error) {
  log(`bad environment: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
// Before reading a single request: from here on workspace code cannot reach this process.
try {
  const separated = separateFromWorkspace(config);
  log(separated ? `separated from the workspace user: ${separated}` : "no BERTH_WORKSPACE_USER or not root: workspace code runs as the agent's own user");
} catch (error) {
  log(`cannot separate from the workspace user: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
log(`ready (workspace ${config.workspace}, pid ${process.pid})`);
const server = startAgentServer({ config, input: process.stdin, output: process.stdout, log });
void server.closed.then(() => process.exit(0));
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => void server.shutdown().finally(() => process.exit(0)));
}
