import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StdioLauncher } from "../gateway";

/**
 * FOR TESTS ONLY: starts the stdio server as a child of this process, on the host. Production stdio
 * servers run inside the session's container (the runner's launcher goes through the in-container
 * agent); this stands in for it behind the same interface. `commandOverride` maps the registered
 * command to a host binary (e.g. "node" → process.execPath).
 */
export function createHostStdioLauncher(opts: { commandOverride?: (command: string) => string } = {}): StdioLauncher & {
  launched: Array<{ sessionId: string; userId: string; serverId: string }>;
} {
  const launched: Array<{ sessionId: string; userId: string; serverId: string }> = [];
  return {
    launched,
    async launch({ server, sessionId, userId }) {
      launched.push({ sessionId, userId, serverId: server.id });
      return new StdioClientTransport({
        command: opts.commandOverride?.(server.command) ?? server.command,
        args: server.args ?? [],
        stderr: "ignore",
      });
    },
  };
}
