import { z } from "zod";
import { WorkspacePathSchema } from "./lenient";
import { ExpectedSha256Schema } from "./write-file";

export const EditArgsSchema = z.object({
  path: WorkspacePathSchema,
  old_string: z.string(),
  new_string: z.string(),
  replaceAll: z.boolean().default(false),
  expectedSha256: ExpectedSha256Schema,
});
export type EditArgs = z.infer<typeof EditArgsSchema>;

export const EditDetailsSchema = z.object({
  path: z.string(),
  replacements: z.number().int(),
  /** sha256 of the file's bytes after the edit. */
  sha256: z.string().optional(),
});
export type EditDetails = z.infer<typeof EditDetailsSchema>;
