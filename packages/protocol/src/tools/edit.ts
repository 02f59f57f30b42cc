import { z } from "zod";
import { WorkspacePathSchema } from "./lenient";

export const EditArgsSchema = z.object({
  path: WorkspacePathSchema,
  old_string: z.string(),
  new_string: z.string(),
  replaceAll: z.boolean().default(false),
});
export type EditArgs = z.infer<typeof EditArgsSchema>;

export interface EditDetails {
  path: string;
  replacements: number;
}
