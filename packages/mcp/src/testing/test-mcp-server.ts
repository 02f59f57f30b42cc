import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repo's SDK test server (test-server/berth-test-mcp-server.mjs), runnable with plain node. */
export const TEST_MCP_SERVER_PATH = fileURLToPath(
  new URL("../../test-server/berth-test-mcp-server.mjs", import.meta.url),
);

export interface TestServerOptions {
  label?: string;
  variant?: 1 | 2;
  port?: number;
}

/** Command-line arguments for the test server (without the --http part). */
export function testServerArgs(opts: TestServerOptions = {}): string[] {
  return [TEST_MCP_SERVER_PATH, "--label", opts.label ?? "test", "--variant", String(opts.variant ?? 1)];
}

export interface RunningHttpTestServer {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the test server over Streamable HTTP on 127.0.0.1 and resolves with its URL. */
export async function startHttpTestMcpServer(opts: TestServerOptions = {}): Promise<RunningHttpTestServer> {
  const child = spawn(process.execPath, [...testServerArgs(opts), "--http", "--port", String(opts.port ?? 0)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    const timer = setTimeout(() => reject(new Error("test MCP server did not start within 10 s")), 10_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      const match = /MCP_TEST_SERVER_URL=(\S+)/.exec(buffer);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`test MCP server exited with ${code}`));
    });
  });
  return {
    url,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
