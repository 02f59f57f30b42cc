import { z } from "zod";
import { DecisionSchema, PolicyRuleSchema, PolicyTargetSchema } from "../admission";

// ---- /api/policy-rules (docs/api.md "REST"): the body is a PolicyRule without its id (admission.ts) ----

/** `POST /api/policy-rules`: validatePolicyRule (packages/tools) also runs the rule's example commands. */
export const CreatePolicyRuleBodySchema = PolicyRuleSchema.omit({ id: true });
export type CreatePolicyRuleBody = z.input<typeof CreatePolicyRuleBodySchema>;

/** A stored rule as `GET /api/policy-rules` lists it. */
export const PolicyRuleViewSchema = z.object({
  id: z.string(),
  tool: z.string(),
  commandPrefix: z.string().nullable(),
  effect: DecisionSchema,
  appliesTo: PolicyTargetSchema,
  scriptSha256: z.string().nullable(),
  mustMatch: z.array(z.string()),
  mustNotMatch: z.array(z.string()),
  createdBy: z.string(),
  createdAt: z.string(),
});
export type PolicyRuleView = z.infer<typeof PolicyRuleViewSchema>;

export const PolicyRuleListSchema = z.object({ rules: z.array(PolicyRuleViewSchema) });
