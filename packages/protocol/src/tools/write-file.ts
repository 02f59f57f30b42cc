import { z } from "zod";
import { EncodingSchema, WorkspacePathSchema } from "./lenient";

export const WRITE_FILE_MAX_BYTES = 8 * 1024 * 1024;
export const WRITE_MODES = ["overwrite", "create", "append"] as const;
export type WriteMode = (typeof WRITE_MODES)[number];

export const WriteFileArgsSchema = z.object({
  path: WorkspacePathSchema,
  content: z.string(),
  mode: z
    .enum(WRITE_MODES, { error: (issue) => `Unsupported write mode: ${String(issue.input)}` })
    .default("overwrite"),
  encoding: EncodingSchema.default("utf8"),
});
export type WriteFileArgs = z.infer<typeof WriteFileArgsSchema>;

export const WriteFileDetailsSchema = z.object({
  path: z.string(),
  mode: z.enum(WRITE_MODES),
  created: z.boolean(),
  appended: z.boolean(),
  bytesWritten: z.number().int(),
});
export type WriteFileDetails = z.infer<typeof WriteFileDetailsSchema>;
