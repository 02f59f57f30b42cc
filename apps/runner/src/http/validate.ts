import { AppError } from "@berth/protocol";
import type { z } from "zod";
import { formatIssues } from "@berth/protocol";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The first string (or key) in `value` holding a lone UTF-16 surrogate, as "path: why", or null. JSON can
 * spell one (`"\ud800"`) but UTF-8 cannot encode it, so a name or rule holding one would fail in the
 * database (a 500) or be stored altered; it is refused at the boundary instead.
 */
export function loneSurrogateIssue(value: unknown, path: string[] = []): string | null {
  const at = () => (path.length ? path.join(".") : "value");
  if (typeof value === "string") {
    const match = LONE_SURROGATE.exec(value);
    if (!match) return null;
    const unit = match[0].charCodeAt(0).toString(16);
    return `${at()}: must be valid Unicode (a lone UTF-16 surrogate \\u${unit} at index ${match.index})`;
  }
  if (typeof value !== "object" || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    if (LONE_SURROGATE.test(key)) return `${at()}: keys must be valid Unicode (a key holds a lone UTF-16 surrogate)`;
    const issue = loneSurrogateIssue(item, [...path, key]);
    if (issue) return issue;
  }
  return null;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * False when JSON text cannot hold a lone surrogate once parsed: text decoded from UTF-8 has none of its own, so
 * only a `\uD800`–`\uDFFF` escape can make one. True means "walk the value" (loneSurrogateIssue), not "found".
 */
export function mayEscapeSurrogate(json: string): boolean {
  return SURROGATE_ESCAPE.test(json);
}

/**
 * The first route parameter or query value no database can store as text, as "name: why", or null: a lone
 * surrogate, or NUL, which PostgreSQL's text refuses (SQLite keeps it), so an id holding one was a 500 there.
 */
export function unstorableParamIssue(values: unknown): string | null {
  if (typeof values !== "object" || values === null) return null;
  for (const [name, value] of Object.entries(values)) {
    for (const text of Array.isArray(value) ? value : [value]) {
      if (typeof text !== "string") continue;
      const nul = text.indexOf("\u0000");
      if (nul !== -1) return `${name}: must not contain NUL (U+0000, at index ${nul})`;
      const surrogate = loneSurrogateIssue(text, [name]);
      if (surrogate) return surrogate;
    }
  }
  return null;
}

/** safeParse at the boundary: a 400 naming each bad field. */
export function parse<T>(schema: z.ZodType<T>, value: unknown, what = "body"): T {
  const surrogate = loneSurrogateIssue(value);
  if (surrogate) throw new AppError({ code: "bad_request", message: `Invalid ${what}: ${surrogate}` });
  return parseScanned(schema, value, what);
}

/**
 * `parse` for an HTTP body or query, which the JSON body parser and the preValidation hook (build-server.ts) already
 * scanned for lone surrogates: the tool-call route runs on every call and need not scan them twice.
 */
export function parseScanned<T>(schema: z.ZodType<T>, value: unknown, what = "body"): T {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw new AppError({ code: "bad_request", message: `Invalid ${what}: ${formatIssues(parsed.error)}` });
  return parsed.data;
}
