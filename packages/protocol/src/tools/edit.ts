import { z } from "zod";
import { WorkspacePathSchema } from "./lenient";

export const EditArgsSchema = z.object({
  path: WorkspacePathSchema,
  old_string: z.string(),
  new_string: z.string(),
  replaceAll: z.boolean().default(false),
});
export type EditArgs = z.infer<typeof EditArgsSchema>;

export const EditDetailsSchema = z.object({
  path: z.string(),
  replacements: z.number().int(),
});
export type EditDetails = z.infer<typeof EditDetailsSchema>;
