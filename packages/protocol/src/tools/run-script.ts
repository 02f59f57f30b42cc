import { z } from "zod";
import { lenientArray, lenientObject, noNul } from "./lenient";

export const RUN_SCRIPT_INTERPRETERS = [
  "python3",
  "python",
  "node",
  "bash",
  "sh",
  "Rscript",
  "julia",
  "perl",
  "ruby",
  "octave",
] as const;
export type RunScriptInterpreter = (typeof RUN_SCRIPT_INTERPRETERS)[number];
export const RUN_SCRIPT_MAX_ARGS = 64;
export const RUN_SCRIPT_MAX_ARG_BYTES = 4096;
export const RUN_SCRIPT_MAX_FILES = 64;
export const RUN_SCRIPT_MAX_ENV_KEYS = 32;
export const RUN_SCRIPT_MAX_ENV_VALUE_BYTES = 4096;
export const RUN_SCRIPT_ENV_KEY_PATTERN = /^[A-Z_][A-Z0-9_]*$/;
export const RUN_SCRIPT_DEFAULT_TIMEOUT_MS = 600_000;
export const RUN_SCRIPT_MAX_TIMEOUT_MS = 21_600_000;
export const RUN_SCRIPT_MAX_HASH_BYTES = 64 * 1024 * 1024;
export const RUN_SCRIPT_TAIL_BYTES = 8 * 1024;

/** Outcomes in order of precedence: the first that applies wins. */
export const RUN_SCRIPT_OUTCOMES = [
  // Nothing ran: the script or a declared input changed since the call was approved.
  "refused",
  "aborted",
  "timed-out",
  "oom-killed",
  "spawn-failed",
  "cleanup-incomplete",
  "failed",
  "succeeded",
] as const;
export type RunScriptOutcome = (typeof RUN_SCRIPT_OUTCOMES)[number];

const byteLength = (value: string) => new TextEncoder().encode(value).length;
const preview = (value: unknown) => JSON.stringify(value)?.slice(0, 80) ?? String(value);

const ArgSchema = z
  .string({ error: (iss) => `must be a string (got ${preview(iss.input)})` })
  .refine(noNul, { error: "must not contain NUL bytes" })
  .refine((v) => byteLength(v) <= RUN_SCRIPT_MAX_ARG_BYTES, {
    error: (iss) => `must be at most ${RUN_SCRIPT_MAX_ARG_BYTES} bytes (got ${byteLength(String(iss.input))} bytes)`,
  });

const argList = () =>
  lenientArray(
    z
      .array(ArgSchema, { error: (iss) => `must be an array of strings (got ${preview(iss.input)})` })
      .max(RUN_SCRIPT_MAX_ARGS, {
        error: (iss) =>
          `must have at most ${RUN_SCRIPT_MAX_ARGS} items (got ${Array.isArray(iss.input) ? iss.input.length : "?"})`,
      }),
  ).default([]);

const PathSchema = z
  .string({ error: (iss) => `must be a path string (got ${preview(iss.input)})` })
  .min(1, { error: "must not be empty" })
  .refine(noNul, { error: "must not contain NUL bytes" })
  .refine((v) => byteLength(v) <= RUN_SCRIPT_MAX_ARG_BYTES, {
    error: (iss) => `must be at most ${RUN_SCRIPT_MAX_ARG_BYTES} bytes (got ${byteLength(String(iss.input))} bytes)`,
  });

const pathList = () =>
  lenientArray(
    z
      .array(PathSchema, { error: (iss) => `must be an array of paths (got ${preview(iss.input)})` })
      .max(RUN_SCRIPT_MAX_FILES, {
        error: (iss) =>
          `must have at most ${RUN_SCRIPT_MAX_FILES} items (got ${Array.isArray(iss.input) ? iss.input.length : "?"})`,
      }),
  ).default([]);

const EnvSchema = lenientObject(
  z
    .record(
      z.string().regex(RUN_SCRIPT_ENV_KEY_PATTERN, {
        error: (iss) => `key must match ${RUN_SCRIPT_ENV_KEY_PATTERN.source} (got ${preview(iss.input)})`,
      }),
      z
        .string({ error: (iss) => `value must be a string (got ${preview(iss.input)})` })
        .refine(noNul, { error: "value must not contain NUL bytes" })
        .refine((v) => byteLength(v) <= RUN_SCRIPT_MAX_ENV_VALUE_BYTES, {
          error: (iss) =>
            `value must be at most ${RUN_SCRIPT_MAX_ENV_VALUE_BYTES} bytes (got ${byteLength(String(iss.input))} bytes)`,
        }),
      {
        error: (iss) =>
          iss.code === "invalid_key"
            ? `key must match ${RUN_SCRIPT_ENV_KEY_PATTERN.source} (got ${preview(iss.input)})`
            : `must be an object of strings (got ${preview(iss.input)})`,
      },
    )
    .refine((env) => Object.keys(env).length <= RUN_SCRIPT_MAX_ENV_KEYS, {
      error: (iss) =>
        `must have at most ${RUN_SCRIPT_MAX_ENV_KEYS} keys (got ${Object.keys(iss.input as object).length})`,
    }),
).default({});

export const RunScriptArgsSchema = z.object({
  interpreter: z
    .string({ error: (iss) => `must be a string (got ${preview(iss.input)})` })
    .refine((v): v is RunScriptInterpreter => (RUN_SCRIPT_INTERPRETERS as readonly string[]).includes(v), {
      error: (iss) => `must be one of ${RUN_SCRIPT_INTERPRETERS.join(", ")} as a bare name (got ${preview(iss.input)})`,
    }),
  script: PathSchema,
  args: argList(),
  interpreterArgs: argList(),
  cwd: PathSchema.default("."),
  env: EnvSchema,
  timeoutMs: z
    .number({ error: (iss) => `must be a number (got ${preview(iss.input)})` })
    .int({ error: (iss) => `must be a whole number of milliseconds (got ${preview(iss.input)})` })
    .min(1, { error: (iss) => `must be at least 1 (got ${preview(iss.input)})` })
    // Clamped, not refused: a model asking for a day gets the six-hour maximum.
    .transform((v) => Math.min(v, RUN_SCRIPT_MAX_TIMEOUT_MS))
    .default(RUN_SCRIPT_DEFAULT_TIMEOUT_MS),
  inputs: pathList(),
  outputs: pathList(),
});
export type RunScriptArgs = z.infer<typeof RunScriptArgsSchema>;

export const RunScriptFileHashSchema = z.object({
  path: z.string(),
  sha256: z.string().nullable(),
  bytes: z.number().int().nullable(),
  /** Why there is no hash: the file is missing, not a file, or over 64 MiB. */
  note: z.enum(["absent", "not-a-file", "too-large"]).optional(),
});
export type RunScriptFileHash = z.infer<typeof RunScriptFileHashSchema>;

export const RunScriptOutputHashSchema = RunScriptFileHashSchema.extend({
  status: z.enum(["created", "modified", "unchanged", "absent"]),
  sha256Before: z.string().nullable(),
});
export type RunScriptOutputHash = z.infer<typeof RunScriptOutputHashSchema>;

export const RunScriptDetailsSchema = z.object({
  outcome: z.enum(RUN_SCRIPT_OUTCOMES),
  interpreter: z.enum(RUN_SCRIPT_INTERPRETERS),
  interpreterPath: z.string().nullable(),
  command: z.array(z.string()),
  script: z.string(),
  scriptSha256: z.string(),
  args: z.array(z.string()),
  interpreterArgs: z.array(z.string()),
  cwd: z.string(),
  /** Keys only: env values are never stored. */
  envKeys: z.array(z.string()),
  timeoutMs: z.number().int(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  durationMs: z.number(),
  startedAt: z.string(),
  endedAt: z.string(),
  stdoutBytes: z.number().int(),
  stderrBytes: z.number().int(),
  stdoutTail: z.string(),
  stderrTail: z.string(),
  inputs: z.array(RunScriptFileHashSchema),
  outputs: z.array(RunScriptOutputHashSchema),
  timedOut: z.boolean(),
  oomKilled: z.boolean(),
  spawnError: z.string().optional(),
  /** Descendants still alive after the script exited (killed by the agent). */
  survivors: z.number().int().optional(),
});
export type RunScriptDetails = z.infer<typeof RunScriptDetailsSchema>;
