import type { z } from "zod";

/** `["args", 3, "x"]` → `args[3].x`, the way a model would name the field. */
export function fieldName(path: readonly PropertyKey[]): string {
  let name = "";
  for (const key of path) {
    if (typeof key === "number") name += `[${key}]`;
    else name += name === "" ? String(key) : `.${String(key)}`;
  }
  return name === "" ? "arguments" : name;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

export function preview(value: unknown): string {
  if (typeof value === "string") {
    return (
      JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value) +
      (value.length > 60 ? ` (${value.length} characters)` : "")
    );
  }
  const json = JSON.stringify(value);
  return json === undefined ? String(value) : json.length > 80 ? `${json.slice(0, 80)}…` : json;
}

/**
 * One line per issue, each naming the field and the bad value. A message that is a whole sentence of
 * the spec (`Unsupported write mode: x`) is returned alone and unchanged.
 */
export function formatArgIssues(
  issues: readonly z.core.$ZodIssue[],
  raw: unknown,
): { message: string; verbatim: boolean } {
  const verbatim = issues.find((issue) => issue.message.startsWith("Unsupported "));
  if (verbatim) return { message: verbatim.message, verbatim: true };
  const lines = issues.map((issue) => {
    const field = fieldName(issue.path);
    const value = valueAt(raw, issue.path);
    if (issue.code === "invalid_type" && value === undefined) return `${field}: required (expected ${issue.expected})`;
    let message = issue.message.replace(/^Invalid input: /, "");
    if (issue.code === "unrecognized_keys") return `${field}: ${message}`;
    if (!message.includes("(got") && value !== undefined) message += ` (got ${preview(value)})`;
    return `${field}: ${message}`;
  });
  return { message: lines.join("; "), verbatim: false };
}

/**
 * Finds a string that cannot be valid UTF-8: a lone surrogate (from a JSON `\ud800` escape) or, when
 * the request line itself was not valid UTF-8, a replacement character left by decoding it.
 */
export function findMalformedString(
  value: unknown,
  lineWasInvalidUtf8: boolean,
  path: PropertyKey[] = [],
): string | null {
  if (typeof value === "string") {
    if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value)) return fieldName(path);
    if (lineWasInvalidUtf8 && value.includes("\uFFFD")) return fieldName(path);
    return null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findMalformedString(value[i], lineWasInvalidUtf8, [...path, i]);
      if (found) return found;
    }
    return null;
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const found = findMalformedString(item, lineWasInvalidUtf8, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}
