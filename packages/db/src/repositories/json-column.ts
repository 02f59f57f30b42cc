import { AppError } from "@berth/protocol";
import type { z } from "zod";

/**
 * Reads a `*Json` text column with its schema, once, where the row leaves the database. A column that is not
 * JSON or does not match is an internal error naming the column and the first issue; with `fallback` it
 * reads as that value instead (recovery must get past a hand-edited row).
 */
export function parseJsonColumn<S extends z.ZodType>(schema: S, text: string, column: string, fallback?: z.output<S>): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (fallback !== undefined) return fallback;
    throw new AppError({ code: "internal", message: `${column}: stored text is not JSON (${(error as Error).message})`, cause: error });
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  if (fallback !== undefined) return fallback;
  const issue = parsed.error.issues[0];
  throw new AppError({ code: "internal", message: `${column}${issue?.path.length ? `.${issue.path.join(".")}` : ""}: stored JSON does not match (${issue?.message ?? "invalid"})` });
}

/** A plain text column that holds one of a schema's values (an enum stored as text), named when it does not. */
export function parseColumn<S extends z.ZodType>(schema: S, value: unknown, column: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new AppError({ code: "internal", message: `${column}: stored value ${JSON.stringify(value)} does not match (${parsed.error.issues[0]?.message ?? "invalid"})` });
}

/** A nullable timestamp column as the ISO text every view carries. */
export const isoOrNull = (date: Date | null): string | null => date?.toISOString() ?? null;
