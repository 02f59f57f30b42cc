import { z } from "zod";

export const AGENTS_MD_MAX_BYTES = 1024 * 1024;

export const UpdateAgentsMdArgsSchema = z.object({
  action: z
    .enum(["read", "write", "append"], {
      error: (issue) => `Unsupported update_agents_md action: ${String(issue.input)}`,
    })
    .default("read"),
  content: z.string().max(AGENTS_MD_MAX_BYTES, `must be at most ${AGENTS_MD_MAX_BYTES} characters`).optional(),
  /** Alias of content, used by append in older prompts. */
  text: z.string().max(AGENTS_MD_MAX_BYTES, `must be at most ${AGENTS_MD_MAX_BYTES} characters`).optional(),
});
export type UpdateAgentsMdArgs = z.infer<typeof UpdateAgentsMdArgsSchema>;

export const UpdateAgentsMdDetailsSchema = z.object({
  path: z.literal("AGENTS.md"),
  action: z.enum(["read", "write", "append"]),
  exists: z.boolean(),
  /** Present for read. */
  content: z.string().optional(),
  /** Present for write and append. */
  bytesWritten: z.number().int().optional(),
});
export type UpdateAgentsMdDetails = z.infer<typeof UpdateAgentsMdDetailsSchema>;
