import { z } from "zod";

// ---- /api/skills (docs/api.md "REST") ----

export const SKILL_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** model: an agent may activate the skill through `context skills`; manual: only a person or an operator. */
export const SkillActivationSchema = z.enum(["model", "manual"], {
  error: (issue) => `must be model or manual (got ${JSON.stringify(issue.input)})`,
});
export type SkillActivation = z.infer<typeof SkillActivationSchema>;

/** `POST /api/skills`: exactly these fields. */
export const SkillBodySchema = z.strictObject({
  name: z.string().regex(SKILL_NAME_PATTERN, "must be 1-64 lowercase letters, digits or dashes, starting with a letter or digit"),
  description: z.string().trim().min(1, "must not be empty").max(1000, "must be at most 1000 characters"),
  body: z.string().max(256 * 1024, "must be at most 262144 characters"),
  allowedTools: z.array(z.string().min(1).max(100)).max(100, "must have at most 100 tools").optional(),
  /** Default model. */
  activation: SkillActivationSchema.optional(),
});
export type SkillBody = z.infer<typeof SkillBodySchema>;

/** `PUT /api/skills/:name`: the name comes from the path. */
export const SkillUpdateBodySchema = SkillBodySchema.omit({ name: true });
export type SkillUpdateBody = z.infer<typeof SkillUpdateBodySchema>;

/** A stored skill: `contentHash` covers everything an agent reads of it; `version` counts its changes. */
export const SkillViewSchema = z.object({
  name: z.string(),
  description: z.string(),
  body: z.string(),
  allowedTools: z.array(z.string()),
  contentHash: z.string(),
  version: z.number().int(),
  ownerId: z.string().nullable(),
  activation: SkillActivationSchema,
  /** The stored content no longer matches contentHash (changed outside the API): cannot be activated until accepted. */
  drifted: z.boolean().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type SkillView = z.infer<typeof SkillViewSchema>;

export const SkillListSchema = z.object({ skills: z.array(SkillViewSchema) });
