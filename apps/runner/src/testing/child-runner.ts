import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { io as connect, type Socket } from "socket.io-client";
import { TEST_ADMIN_TOKEN } from "./runner-test-kit";
import { createTestDatabase, type TestDatabase } from "./test-database";

const ROOT = path.resolve(import.meta.dirname, "../../../..");
const MAIN = path.join(ROOT, "apps/runner/src/main.ts");
const START_TIMEOUT_MS = 120_000;

/**
 * A runner in a child process of its own (main.ts through tsx), so a test can SIGKILL it the way a crash
 * would and start another on the same data dir. Loopback only, its own port, data dir and runner id.
 */
export class ChildRunner {
  private child: ChildProcess | null = null;
  private sockets: Socket[] = [];
  url = "";
  port = 0;

  private constructor(
    readonly dataDir: string,
    readonly runnerId: string,
    private readonly extraEnv: Record<string, string>,
    private readonly database: TestDatabase,
    private readonly ownsDatabase: boolean,
  ) {}

  /**
   * `database`: one that several runners share (a cluster: the caller drops it after closing them all); by
   * default the runner gets a fresh one of its own, dropped by `close`.
   */
  static async create(opts: { runnerId: string; env?: Record<string, string>; database?: TestDatabase }): Promise<ChildRunner> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-child-runner-"));
    const database = opts.database ?? createTestDatabase(dataDir);
    const runner = new ChildRunner(dataDir, opts.runnerId, opts.env ?? {}, database, !opts.database);
    await runner.start();
    return runner;
  }

  /** Starts a runner process on the data dir and waits for its ready line. */
  async start(): Promise<void> {
    this.port = await freePort();
    // BERTH_CHILD_CPU_PROF_DIR: each child runner writes a V8 CPU profile there when it exits (NODE_OPTIONS cannot carry --cpu-prof).
    const profile = process.env.BERTH_CHILD_CPU_PROF_DIR ? ["--cpu-prof", "--cpu-prof-dir", process.env.BERTH_CHILD_CPU_PROF_DIR] : [];
    const child = spawn(process.execPath, [...profile, "--import", "tsx", MAIN], {
      cwd: ROOT,
      env: {
        ...process.env,
        BERTH_DATA_DIR: this.dataDir,
        BERTH_HOST: "127.0.0.1",
        BERTH_RUNNER_PORT: String(this.port),
        BERTH_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        BERTH_RUNNER_ID: this.runnerId,
        BERTH_WARM_POOL: "0",
        BERTH_LOG_LEVEL: "warn",
        DATABASE_URL: this.database.url,
        ...this.extraEnv,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    let output = "";
    await new Promise<void>((resolve, reject) => {
      // Bounded: a runner that hangs at start fails its test instead of stalling the suite.
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`runner ${this.runnerId} was not ready within ${START_TIMEOUT_MS / 1000} s: ${output.slice(-2000)}`));
      }, START_TIMEOUT_MS);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const ready = /berth-runner ready on (\S+)/.exec(output);
        if (ready?.[1]) {
          this.url = ready[1];
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`runner exited (${code ?? signal}) before it was ready: ${output.slice(-2000)}`));
      });
    });
    this.output = () => output;
  }

  /** What the runner printed so far (stdout and stderr). */
  output: () => string = () => "";

  /** A crash: SIGKILL, nothing flushed, nothing closed; waits until the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    for (const socket of this.sockets) socket.io.opts.reconnection = false;
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await gone;
    this.child = null;
  }

  /** A graceful stop (SIGTERM). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    // A runner that does not stop within 30 s is killed: a test's cleanup never hangs.
    const force = setTimeout(() => child.kill("SIGKILL"), 30_000);
    await gone;
    clearTimeout(force);
    this.child = null;
  }

  pid(): number | undefined {
    return this.child?.pid;
  }

  async api<T = unknown>(
    method: string,
    route: string,
    body?: unknown,
    token = TEST_ADMIN_TOKEN,
  ): Promise<{ status: number; body: T }> {
    return apiCall<T>(this.url, method, route, body, token);
  }

  async socket(token = TEST_ADMIN_TOKEN): Promise<Socket> {
    const socket = connect(this.url, {
      auth: { token },
      transports: ["websocket"],
      forceNew: true,
      reconnection: false,
    });
    this.sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("connect_error", reject);
    });
    return socket;
  }

  /** Sessions deleted, the runner stopped, workspace mounts under the data dir undone, the data dir removed. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.disconnect();
    if (!this.child) await this.start().catch(() => undefined);
    if (this.child) {
      const { body } = await this.api<{ sessions?: { id: string }[] }>("GET", "/api/sessions").catch(() => ({
        body: { sessions: [] },
      }));
      for (const s of body.sessions ?? []) await this.api("DELETE", `/api/sessions/${s.id}`).catch(() => undefined);
      await this.stop();
    }
    for (const line of fs.readFileSync("/proc/self/mounts", "utf8").split("\n")) {
      const target = line.split(" ")[1];
      if (target?.startsWith(`${this.dataDir}/`)) execFileSync("umount", ["-l", target], { stdio: "ignore" });
    }
    fs.rmSync(this.dataDir, { recursive: true, force: true });
    if (this.ownsDatabase) this.database.drop();
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** One JSON API call to `baseUrl` with a bearer token: a runner's, or a proxy's in front of one (bench:cluster). */
export async function apiCall<T = unknown>(baseUrl: string, method: string, route: string, body?: unknown, token = TEST_ADMIN_TOKEN): Promise<{ status: number; body: T }> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}
