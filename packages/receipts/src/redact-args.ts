/** What a redacted value becomes. Idempotent: redacting a redacted value changes nothing. */
export const REDACTED = "[REDACTED]";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

// Keys are compared lowercased with separators removed, so API_KEY, apiKey and x-api-key all match.
const SECRET_KEY_PARTS = [
  "password",
  "passwd",
  "passphrase",
  "secret",
  "apikey",
  "accesskey",
  "privatekey",
  "credential",
  "cookie",
  "bearer",
  "authorization",
];
// Only as a suffix: "githubToken" is a secret, "maxTokens" or "tokenizer" is not.
const SECRET_KEY_SUFFIXES = ["token", "pwd", "auth"];
const ENV_KEYS = new Set(["env", "environment", "envvars"]);

/** True for keys whose values must never be stored (api_key, GITHUB_TOKEN, password, Authorization…). */
export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[^a-z0-9]/g, "");
  return (
    k === "pass" || SECRET_KEY_PARTS.some((part) => k.includes(part)) || SECRET_KEY_SUFFIXES.some((s) => k.endsWith(s))
  );
}

// Well-known secret shapes that show up inside ordinary strings (a bash command, a URL, a script).
const SECRET_VALUE_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g, REDACTED],
  [/(\bAuthorization:\s*[A-Za-z]+\s+)[^\s"']+/gi, `$1${REDACTED}`],
  [/\b(Bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  [/\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g, REDACTED],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\bsk-[A-Za-z0-9_-]{20,}/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
  // scheme://user:password@host
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, `$1${REDACTED}@`],
  // API_TOKEN=abc, export DB_PASSWORD='x', --api-key=abc (the name must end in the secret word:
  // num_tokens=3 is not a secret)
  [
    /((?:\b|--?)[A-Za-z0-9_-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|secret[_-]?key)=)("[^"]*"|'[^']*'|[^\s"']+)/gi,
    `$1${REDACTED}`,
  ],
];

/** Replaces secret-looking substrings (tokens, private keys, URL passwords, KEY=value) in a string. */
export function redactString(value: string): string {
  let out = value;
  for (const [pattern, replacement] of SECRET_VALUE_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * Env keys only, sorted and unique. Accepts `{KEY: value}` or Docker-style `["KEY=value"]`; values are
 * dropped here, so they never reach a receipt.
 */
export function envKeys(env: unknown): string[] {
  let keys: string[] = [];
  if (Array.isArray(env)) {
    keys = env.filter((item): item is string => typeof item === "string").map((item) => item.split("=", 1)[0] ?? "");
  } else if (typeof env === "object" && env !== null) {
    keys = Object.keys(env);
  }
  return [...new Set(keys.filter((key) => key !== ""))].sort();
}

/**
 * The arguments as a receipt may store them: JSON data only; an `env` object becomes its sorted key list
 * (values dropped); values under secret-looking keys become "[REDACTED]"; secret-looking substrings in
 * every other string are replaced. Non-JSON values (functions, undefined) are dropped; NaN/Infinity → null.
 */
export function redactArgs(args: unknown): JsonValue {
  return redactValue(args, new Set<object>());
}

function redactValue(value: unknown, seen: Set<object>): JsonValue {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string") return redactString(value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object") return null;
  if (seen.has(value)) throw new TypeError("redactArgs: arguments contain a cycle");
  seen.add(value);
  try {
    if (value instanceof Date) return value.toISOString();
    if (Array.isArray(value)) return value.map((item) => redactValue(item, seen));
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
      const k = key.toLowerCase().replace(/[^a-z0-9]/g, "");
      if (ENV_KEYS.has(k) && typeof item === "object" && item !== null) out[key] = envKeys(item);
      else if (isSecretKey(key) && item !== null) out[key] = REDACTED;
      else out[key] = redactValue(item, seen);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}
