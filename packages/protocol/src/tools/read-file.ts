import { z } from "zod";
import { EncodingSchema, WorkspacePathSchema } from "./lenient";

export const READ_FILE_MAX_BYTES = 20 * 1024 * 1024;
export const READ_FILE_DEFAULT_MAX_CHARS = 50_000;

export const ReadFileArgsSchema = z.object({
  path: WorkspacePathSchema,
  startLine: z.number().int().optional(),
  endLine: z.number().int().optional(),
  maxChars: z
    .number()
    .int()
    .min(1, "must be at least 1")
    .max(READ_FILE_MAX_BYTES, `must be at most ${READ_FILE_MAX_BYTES}`)
    .default(READ_FILE_DEFAULT_MAX_CHARS),
  encoding: EncodingSchema.default("utf8"),
});
export type ReadFileArgs = z.infer<typeof ReadFileArgsSchema>;

/** What read_file returns (details, and structuredContent for MCP callers). */
export const ReadFileDetailsSchema = z.object({
  path: z.string(),
  content: z.string(),
  startLine: z.number().int(),
  endLine: z.number().int(),
  totalLines: z.number().int(),
  truncated: z.boolean(),
  nextStartLine: z.number().int().optional(),
  encoding: z.enum(["utf8", "base64"]),
  /** sha256 (hex) of the whole file's bytes, whatever range was returned: a save's expectedSha256. */
  sha256: z.string().optional(),
});
export type ReadFileDetails = z.infer<typeof ReadFileDetailsSchema>;
