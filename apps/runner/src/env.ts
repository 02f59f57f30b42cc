import path from "node:path";
import { z } from "zod";
import { splitHost } from "./http/request-guard";
import { parseDockerHosts } from "@berth/sandbox";
import { DEFAULT_OBSERVATION_LIMITS, MAX_OBSERVATION_BYTES, MIN_OBSERVATION_BYTES, parseObservationCaps } from "@berth/tools";

const port = z.coerce.number().int().min(1).max(65535);

/** Every setting of the runner, parsed once at start; nothing else reads process.env. */
export const EnvSchema = z.object({
  BERTH_HOST: z.string().min(1).default("127.0.0.1"),
  BERTH_RUNNER_PORT: port.default(4000),
  BERTH_WEB_PORT: port.default(3000),
  BERTH_DATA_DIR: z.string().min(1).default(".berth"),
  DATABASE_URL: z
    .string()
    .optional()
    .transform((value) => (value ? value : undefined))
    .refine((value) => value === undefined || /^(postgres(ql)?|file):/.test(value), {
      message: "must start with postgresql:// (or be unset for the embedded SQLite)",
    }),
  BERTH_ADMIN_TOKEN: z
    .string()
    .optional()
    .transform((value) => (value ? value : undefined))
    .refine((value) => value === undefined || value.length >= 16, { message: "must be at least 16 characters (a short admin token can be guessed)" }),
  BERTH_SANDBOX_IMAGE: z.string().min(1).default("berth-sandbox:latest"),
  BERTH_WARM_POOL: z.coerce.number().int().min(0).max(32).default(2),
  /**
   * What the warm pool may hold in idle containers when it grows ahead of demand (packages/sandbox warm-pool);
   * unset: the sandbox memory limit, at most an eighth of the host (create-sandbox-driver.ts); 0: a fixed pool.
   */
  BERTH_WARM_POOL_MEMORY: z
    .string()
    .default("")
    .transform((value, ctx) => {
      if (value.trim() === "") return undefined;
      const bytes = parseByteSize(value);
      if (bytes === null) {
        ctx.addIssue({ code: "custom", message: "must be a size such as 1GiB, 512MiB or a number of bytes (0: a fixed pool)" });
        return z.NEVER;
      }
      return bytes;
    }),
  BERTH_MCP_APPROVAL_WAIT_MS: z.coerce.number().int().min(0).default(120_000),
  /** "1": users may register http MCP servers on loopback, private and link-local addresses (off: SSRF). */
  BERTH_MCP_ALLOW_PRIVATE_USER_URLS: z
    .enum(["", "0", "1", "false", "true"])
    .default("")
    .transform((value) => value === "1" || value === "true"),
  /** Public host names (or name:port) besides 127.0.0.1, localhost and [::1]: every other Host is refused. */
  BERTH_ALLOWED_HOSTS: z
    .string()
    .default("")
    .transform((value) => value.split(",").map((entry) => entry.trim()).filter(Boolean))
    .refine((entries) => entries.every((entry) => splitHost(entry) !== null), {
      message: "must be a comma-separated list of host names, each optionally with :port (e.g. berth.example.com,10.0.0.5:3000)",
    }),
  /** How long a browser sign-in lasts before the person signs in again (browser-sessions.ts). */
  BERTH_BROWSER_SESSION_HOURS: z.coerce.number().min(0.05, "must be at least 0.05 (3 minutes)").max(24 * 30, "must be at most 720 (30 days)").default(12),
  /** Size limit of each session's /workspace (workspace-quota.ts in the sandbox package); 0 = no limit. */
  BERTH_WORKSPACE_SIZE: z
    .string()
    .default("10GiB")
    .transform((value, ctx) => {
      const bytes = parseByteSize(value);
      if (bytes === null || (bytes !== 0 && bytes < 32 * 1024 ** 2)) {
        ctx.addIssue({
          code: "custom",
          message: "must be a size such as 10GiB, 512MiB or a number of bytes, at least 32MiB (or 0 for no limit)",
        });
        return z.NEVER;
      }
      return bytes;
    }),
  /** The observation pool of one caller turn, in bytes (docs/tools.md, Observation budget). */
  BERTH_OBSERVATION_POOL_BYTES: z.coerce
    .number()
    .int()
    .min(MIN_OBSERVATION_BYTES, `must be at least ${MIN_OBSERVATION_BYTES}`)
    .max(MAX_OBSERVATION_BYTES, `must be at most ${MAX_OBSERVATION_BYTES}`)
    .default(DEFAULT_OBSERVATION_LIMITS.poolBytes),
  /** Per-call caps of the observing tools over their defaults, e.g. `grep=4096,read_file=65536`. */
  BERTH_OBSERVATION_CAPS: z
    .string()
    .default("")
    .transform((value, ctx) => {
      try {
        return parseObservationCaps(value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /**
   * Docker engines to place sessions on (@berth/sandbox parseDockerHosts: `name=url?tls=&max=&egress=`, comma
   * separated); empty: the one engine DOCKER_HOST or the local socket names.
   */
  BERTH_DOCKER_HOSTS: z
    .string()
    .default("")
    .transform((value, ctx) => {
      if (!value.trim()) return null;
      try {
        return parseDockerHosts(value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
  BERTH_RUNNER_ID: z.string().regex(/^[a-z0-9-]{1,32}$/).default("local"),
  /**
   * Several runners (docs/scale-out.md): the Redis that carries events, invalidations and live output between
   * them (redis://host:port); unset: one runner, everything in-process.
   */
  BERTH_REDIS_URL: z
    .string()
    .optional()
    .transform((value) => (value ? value : undefined))
    .refine((value) => value === undefined || /^rediss?:\/\//.test(value), { message: "must start with redis:// or rediss://" }),
  /** The URL the other runners reach this one at, to forward a session's requests to its owner; unset: http://BERTH_HOST:port. */
  BERTH_RUNNER_URL: z
    .string()
    .optional()
    .transform((value) => (value ? value.replace(/\/+$/, "") : undefined))
    .refine((value) => value === undefined || /^https?:\/\/[^/]+$/.test(value), { message: "must be an http(s) origin such as http://10.0.0.5:4000" }),
  /** How long a session's owner holds it without renewing; another runner adopts it after that (failover). */
  BERTH_SESSION_LEASE_MS: z.coerce.number().int().min(1_000, "must be at least 1000").max(600_000, "must be at most 600000").default(15_000),
  /** Where run logs are kept: `local` files, or `database` (chunks in PostgreSQL, the local file a cache); default: database on PostgreSQL. */
  BERTH_LOG_STORE: z.enum(["", "local", "database"]).default(""),
  /** How many days a run's log is kept after the run ended (runs/log-retention.ts); 0 keeps every log. */
  BERTH_LOG_RETENTION_DAYS: z.coerce.number().int("must be a whole number of days").min(0, "must be 0 (keep every log) or more").max(36_500, "must be at most 36500").default(90),
  /**
   * Shared by the runners of one deployment: a runner signs what it forwards to a session's owner with it
   * (cluster/forward-marker.ts), so a client cannot pass for a runner; never logged. Unset: no forwarding.
   */
  BERTH_CLUSTER_SECRET: z
    .string()
    .optional()
    .transform((value) => (value ? value : undefined))
    .refine((value) => value === undefined || value.length >= 32, { message: "must be at least 32 characters (e.g. openssl rand -hex 32)" }),
  BERTH_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

const BYTE_UNITS: Record<string, number> = { "": 1, b: 1, k: 1024, kib: 1024, m: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gib: 1024 ** 3, t: 1024 ** 4, tib: 1024 ** 4 };

/** "10GiB", "512 MiB", "64M", "1048576" → bytes (binary units: a disk limit is counted in blocks); null if not a size. */
export function parseByteSize(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = match ? BYTE_UNITS[(match[2] ?? "").toLowerCase()] : undefined;
  if (!match || unit === undefined) return null;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

export type Env = z.infer<typeof EnvSchema> & { dataDir: string; webOrigin: string };

/** Parses the environment or returns one line per bad variable, naming it and what it needs. */
export function parseEnv(source: NodeJS.ProcessEnv): { ok: true; env: Env } | { ok: false; errors: string[] } {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => {
      const name = issue.path.join(".");
      return `${name}=${JSON.stringify(source[name] ?? "")}: ${issue.message}`;
    });
    return { ok: false, errors };
  }
  const env = parsed.data;
  return {
    ok: true,
    env: {
      ...env,
      dataDir: path.resolve(env.BERTH_DATA_DIR),
      webOrigin: `http://${env.BERTH_HOST === "0.0.0.0" ? "127.0.0.1" : env.BERTH_HOST}:${env.BERTH_WEB_PORT}`,
    },
  };
}
