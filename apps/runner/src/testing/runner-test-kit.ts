import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { io as connect, type Socket } from "socket.io-client";
import { parseEnv } from "../env";
import { createRunner, type Runner } from "../create-runner";
import { createTestDatabase, migrateSqlite, type TestDatabase } from "./test-database";

export const TEST_ADMIN_TOKEN = "runner-test-admin-token-0123456789";

/** Applies the real migrations to a fresh SQLite file in `dataDir`. */
export const migrate = migrateSqlite;

export interface TestRunner {
  runner: Runner;
  url: string;
  dataDir: string;
  /** Which database this runner uses (`npm test` runs the Docker suite on both). */
  databaseKind: "sqlite" | "postgresql";
  /** The PostgreSQL URL when databaseKind is postgresql (a test that edits rows behind the API opens it). */
  databaseUrl?: string;
  api<T = unknown>(method: string, route: string, body?: unknown, token?: string): Promise<{ status: number; body: T }>;
  tool<T = Record<string, unknown>>(sessionId: string, tool: string, args: unknown, opts?: { wait?: number; token?: string }): Promise<{ status: number; body: T }>;
  createSession(opts?: { autonomy?: string; token?: string }): Promise<string>;
  socket(token?: string): Promise<Socket>;
  /** Stops the runner (sessions keep running) and starts a new one on the same data dir. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real runner in-process: real SQLite with the real migrations, the real Docker engine and sandbox
 * image, on a free port. Everything it creates is removed by close().
 */
export async function startTestRunner(
  opts: {
    runnerId?: string;
    warmPool?: number;
    allowPrivateUserMcpUrls?: boolean;
    workspaceSize?: string;
    /** More BERTH_* settings, as the environment would give them (e.g. BERTH_OBSERVATION_CAPS). */
    env?: Record<string, string>;
    /** A database shared with other runners (testing/two-runners.ts): used as it is and not dropped by close(). */
    database?: TestDatabase;
  } = {},
): Promise<TestRunner> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-runner-test-"));
  const database = opts.database ?? createTestDatabase(dataDir);
  const parsed = parseEnv({
    BERTH_DATA_DIR: dataDir,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    BERTH_RUNNER_PORT: "1",
    BERTH_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    BERTH_WARM_POOL: String(opts.warmPool ?? 0),
    BERTH_RUNNER_ID: opts.runnerId ?? `t-${process.pid}-${Math.floor(Math.random() * 1e6)}`,
    BERTH_LOG_LEVEL: "warn",
    ...(opts.allowPrivateUserMcpUrls ? { BERTH_MCP_ALLOW_PRIVATE_USER_URLS: "1" } : {}),
    ...(opts.workspaceSize ? { BERTH_WORKSPACE_SIZE: opts.workspaceSize } : {}),
    ...opts.env,
  });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const env = { ...parsed.env, BERTH_RUNNER_PORT: 0 };
  let runner = await createRunner(env);
  const sessions = new Set<string>();
  const sockets: Socket[] = [];

  const kit: TestRunner = {
    get runner() {
      return runner;
    },
    get url() {
      return runner.url;
    },
    dataDir,
    databaseKind: database.kind,
    ...(database.url ? { databaseUrl: database.url } : {}),
    async api(method, route, body, token = TEST_ADMIN_TOKEN) {
      const response = await fetch(`${runner.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as never };
    },
    async tool(sessionId, tool, args, { wait, token } = {}) {
      return kit.api("POST", `/api/sessions/${sessionId}/tools/${tool}${wait ? `?wait=${wait}` : ""}`, { args }, token);
    },
    async createSession({ autonomy = "trusted", token } = {}) {
      const { status, body } = await kit.api<{ id: string }>("POST", "/api/sessions", { autonomy }, token);
      if (status !== 201) throw new Error(`create session: ${status} ${JSON.stringify(body)}`);
      sessions.add(body.id);
      return body.id;
    },
    async socket(token = TEST_ADMIN_TOKEN) {
      const socket = connect(runner.url, { auth: { token }, transports: ["websocket"], forceNew: true });
      sockets.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.once("connect", () => resolve());
        socket.once("connect_error", reject);
      });
      return socket;
    },
    async restart() {
      await runner.close();
      runner = await createRunner({ ...env, BERTH_RUNNER_PORT: 0 });
    },
    async close() {
      for (const socket of sockets) socket.disconnect();
      for (const id of sessions) await kit.api("DELETE", `/api/sessions/${id}`).catch(() => undefined);
      await runner.close();
      // Size-limited workspaces are images mounted under the data dir; a session a test did not delete keeps its
      // mount, which would make the folder unremovable (EBUSY).
      for (const line of fs.readFileSync("/proc/self/mounts", "utf8").split("\n")) {
        const target = line.split(" ")[1];
        if (target?.startsWith(`${dataDir}/`)) execFileSync("umount", ["-l", target], { stdio: "ignore" });
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (!opts.database) database.drop();
    },
  };
  return kit;
}

/** Emits with an ack and resolves with its result (or rejects with its error). */
export function emitWithAck<T>(socket: Socket, event: string, payload: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    socket.emit(event, payload, (error: { code: string; message: string } | null, result: T) => (error ? reject(new Error(`${error.code}: ${error.message}`)) : resolve(result)));
  });
}
