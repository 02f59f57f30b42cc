import { z } from "zod";
import { EncodingSchema, WorkspacePathSchema } from "./lenient";

export const WRITE_FILE_MAX_BYTES = 8 * 1024 * 1024;
export const WRITE_MODES = ["overwrite", "create", "append"] as const;
export type WriteMode = (typeof WRITE_MODES)[number];

/**
 * The hash of the file's current bytes a writer saw (read_file's sha256): when the file on disk no longer
 * matches, write_file and edit fail with code `conflict` and change nothing. null or absent: no check.
 */
export const ExpectedSha256Schema = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex digits (the sha256 read_file returned)")
  .transform((hex) => hex.toLowerCase())
  .nullable()
  .optional();

export const WriteFileArgsSchema = z.object({
  path: WorkspacePathSchema,
  content: z.string(),
  mode: z
    .enum(WRITE_MODES, { error: (issue) => `Unsupported write mode: ${String(issue.input)}` })
    .default("overwrite"),
  encoding: EncodingSchema.default("utf8"),
  expectedSha256: ExpectedSha256Schema,
});
export type WriteFileArgs = z.infer<typeof WriteFileArgsSchema>;

export const WriteFileDetailsSchema = z.object({
  path: z.string(),
  mode: z.enum(WRITE_MODES),
  created: z.boolean(),
  appended: z.boolean(),
  bytesWritten: z.number().int(),
  /** sha256 of the file's bytes after the write: the next expectedSha256. */
  sha256: z.string().optional(),
});
export type WriteFileDetails = z.infer<typeof WriteFileDetailsSchema>;
