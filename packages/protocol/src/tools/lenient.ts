import { z } from "zod";

/**
 * Weak-model tolerance (docs/tools.md): an array or object argument sent as a JSON string is parsed,
 * and a single string where an array is expected becomes a one-element array.
 */
export function coerceJsonArray(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const trimmed = value.trim();
  if (trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed);
    } catch {
      // Not JSON after all: a literal string that happens to start with "[".
    }
  }
  return [value];
}

export function coerceJsonObject(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === "object" && parsed !== null ? parsed : value;
  } catch {
    return value;
  }
}

/** An array argument that also accepts a JSON string or a single string. */
export function lenientArray<T extends z.ZodType>(schema: z.ZodArray<T>) {
  return z.preprocess(coerceJsonArray, schema);
}

/** An object/record argument that also accepts a JSON string. */
export function lenientObject<T extends z.ZodType>(schema: T) {
  return z.preprocess(coerceJsonObject, schema);
}

/** Rejects NUL bytes, which no path, pattern or command can carry. */
export const noNul = (value: string) => !value.includes("\0");

/** A workspace-relative path (absolute only inside the root; checked by the agent). */
export const WorkspacePathSchema = z
  .string()
  .min(1, "must not be empty")
  .max(4096, "must be at most 4096 characters")
  .refine(noNul, "must not contain NUL bytes");

/** "utf-8" / "UTF8" from a model mean utf8. */
export const EncodingSchema = z.preprocess(
  (v) => (typeof v === "string" ? v.toLowerCase().replace("-", "") : v),
  z.enum(["utf8", "base64"]),
);
export type Encoding = z.infer<typeof EncodingSchema>;
