/**
 * The one redaction rule of Berth: what a row, a receipt, an approval text or a log line may carry.
 * Like GitHub Actions' masking, the values the runner knows are secret (env values, MCP header values,
 * URL userinfo, tokens) are replaced wherever they appear; on top of that, values under secret-looking
 * keys and well-known secret shapes (`Authorization: Bearer …`, `berth_…`, `ghp_…`, `user:pass@`) go.
 */

/** What a redacted value becomes. Idempotent: redacting a redacted value changes nothing. */
export const REDACTED = "[REDACTED]";

/** Known secrets shorter than this are not masked: masking "1" or "on" would garble every line. */
export const MIN_MASKED_SECRET_CHARS = 4;

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

/** What a key is, for short keys seen before: the same few argument names (path, command, env) come with every call. */
const keyAnswers = new Map<string, { normalized: string; secret: boolean }>();
const REMEMBERED_KEYS = 4096;
const REMEMBERED_KEY_CHARS = 64;

function keyAnswer(key: string): { normalized: string; secret: boolean } {
  const known = keyAnswers.get(key);
  if (known) return known;
  const k = key.toLowerCase().replace(/[^a-z0-9]/g, "");
  const secret =
    k === "pass" || SECRET_KEY_PARTS.some((part) => k.includes(part)) || SECRET_KEY_SUFFIXES.some((s) => k.endsWith(s));
  const answer = { normalized: k, secret };
  if (key.length <= REMEMBERED_KEY_CHARS && keyAnswers.size < REMEMBERED_KEYS) keyAnswers.set(key, answer);
  return answer;
}

/** True for keys whose values must never be stored (api_key, GITHUB_TOKEN, password, Authorization…). */
export function isSecretKey(key: string): boolean {
  return keyAnswer(key).secret;
}

const SECRET_VALUE_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g, REDACTED],
  [/(\bAuthorization:\s*[A-Za-z]+\s+)[^\s"']+/gi, `$1${REDACTED}`],
  [/\b(Bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  // Berth's own API tokens (berth_…) and browser-session secrets (berthb_…).
  [/\bberthb?_[A-Za-z0-9_-]{20,}/g, REDACTED],
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

/** The values worth masking, longest first so a secret containing another is masked whole. */
function maskable(knownSecrets: Iterable<string>): string[] {
  const values = new Set<string>();
  for (const value of knownSecrets)
    if (value.length >= MIN_MASKED_SECRET_CHARS && value !== REDACTED) values.add(value);
  return [...values].sort((a, b) => b.length - a.length);
}

/**
 * Text that holds none of these can match no SECRET_VALUE_PATTERNS entry: each pattern needs one of them (`-----BEGIN`,
 * `Authorization`, `Bearer`, `berth`, `gh?_`/`github_pat_`, `AKIA`/`ASIA`, `xox`, `sk-`, `eyJ`, `://`, `=`), matched
 * here without case, so this is a superset. Most strings (paths, commands, file text) hold none: one scan instead of
 * eleven replaces. A pattern added above needs its literal here.
 */
const MAY_HOLD_SECRET_SHAPE = /-----BEGIN|authorization|bearer|berth|gh[pousr]_|github_pat_|AKIA|ASIA|xox|sk-|eyJ|:\/\/|=/i;

function redactText(value: string, known: readonly string[]): string {
  let out = value;
  for (const secret of known) out = out.split(secret).join(REDACTED);
  if (!MAY_HOLD_SECRET_SHAPE.test(out)) return out;
  for (const [pattern, replacement] of SECRET_VALUE_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** Replaces the known secret values and secret-looking substrings in one string. */
export function redactString(value: string, knownSecrets: Iterable<string> = []): string {
  return redactText(value, maskable(knownSecrets));
}

/** How a redaction shows what it hides. */
export interface RedactOptions {
  /**
   * Show an `env` object's keys each with this mask as its value (`{"API_TOKEN": "***"}`, as approval texts
   * do) instead of its sorted key list. Either way the values are gone.
   */
  envValueMask?: string;
}

/**
 * Redacts a value for storage or display: a string as redactString; JSON data deeply (an `env` object
 * becomes its sorted key list, or its keys with `envValueMask`; values under secret-looking keys become
 * "[REDACTED]", every other string is masked). Non-JSON values (functions, undefined) are dropped;
 * NaN/Infinity → null.
 */
export function redactSecrets(value: string, knownSecrets?: Iterable<string>, options?: RedactOptions): string;
export function redactSecrets(value: unknown, knownSecrets?: Iterable<string>, options?: RedactOptions): JsonValue;
export function redactSecrets(value: unknown, knownSecrets: Iterable<string> = [], options: RedactOptions = {}): JsonValue {
  return redactValue(value, maskable(knownSecrets), new Set<object>(), options);
}

/**
 * Env keys only, sorted and unique. Accepts `{KEY: value}` or Docker-style `["KEY=value"]`; values are
 * dropped here, so they never reach a record.
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

/** The user name and password of a URL with userinfo (`https://user:pass@host`), decoded and as written. */
export function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const parts = [parsed.username, parsed.password].filter((part) => part !== "");
  return [...new Set(parts.flatMap((part) => [part, safeDecode(part)]))];
}

/** A URL as it may be shown or logged: its userinfo replaced (`https://[REDACTED]@host/…`). */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactString(url);
  }
  if (parsed.username === "" && parsed.password === "") return url;
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, `$1${REDACTED}@`);
}

/** The values of an env (or header) record: what redactSecrets is told to mask. */
export function secretValues(record: Record<string, string> | undefined): string[] {
  return record ? Object.values(record) : [];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function redactValue(value: unknown, known: readonly string[], seen: Set<object>, options: RedactOptions): JsonValue {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string") return redactText(value, known);
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object") return null;
  if (seen.has(value)) throw new TypeError("redactSecrets: the value contains a cycle");
  seen.add(value);
  try {
    if (value instanceof Date) return value.toISOString();
    if (Array.isArray(value)) return value.map((item) => redactValue(item, known, seen, options));
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
      const { normalized, secret } = keyAnswer(key);
      if (ENV_KEYS.has(normalized) && typeof item === "object" && item !== null) out[key] = shownEnv(item, options);
      else if (secret && item !== null) out[key] = REDACTED;
      else out[key] = redactValue(item, known, seen, options);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

function shownEnv(env: object, options: RedactOptions): JsonValue {
  const keys = envKeys(env);
  const mask = options.envValueMask;
  return mask === undefined ? keys : Object.fromEntries(keys.map((key) => [key, mask]));
}
