import { z } from "zod";
import { WorkspacePathSchema, noNul } from "./lenient";

export const GREP_MAX_RESULTS = 10_000;
export const GREP_MAX_LINE_CHARS = 500;
export const GREP_MAX_FILE_BYTES = 10 * 1024 * 1024;

export const GrepArgsSchema = z.object({
  pattern: z
    .string()
    .min(1, "must not be empty")
    .max(4096, "must be at most 4096 characters")
    .refine(noNul, "must not contain NUL bytes"),
  path: WorkspacePathSchema.default("."),
  include: z
    .string()
    .min(1, "must not be empty")
    .max(1024, "must be at most 1024 characters")
    .refine(noNul, "must not contain NUL bytes")
    .optional(),
  caseInsensitive: z.boolean().default(false),
  literal: z.boolean().default(false),
  context: z.number().int().min(0, "must be at least 0").max(50, "must be at most 50").default(0),
  maxResults: z
    .number()
    .int()
    .min(1, "must be at least 1")
    .max(GREP_MAX_RESULTS, `must be at most ${GREP_MAX_RESULTS}`)
    .default(100),
});
export type GrepArgs = z.infer<typeof GrepArgsSchema>;

export const GrepMatchSchema = z.object({
  file: z.string(),
  line: z.number().int(),
  content: z.string(),
  /** A context line around a match (grep context > 0), not a match itself. */
  isContext: z.literal(true).optional(),
  /** The line was longer than 500 characters and was cut. */
  lineTruncated: z.literal(true).optional(),
});
export type GrepMatch = z.infer<typeof GrepMatchSchema>;

export const GrepDetailsSchema = z.object({
  matches: z.array(GrepMatchSchema),
  filesMatched: z.number().int(),
  totalMatches: z.number().int(),
  truncated: z.boolean(),
});
export type GrepDetails = z.infer<typeof GrepDetailsSchema>;
