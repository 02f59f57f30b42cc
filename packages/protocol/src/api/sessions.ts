import { z } from "zod";
import { AutonomySchema } from "../admission";
import { ToolResultSchema } from "../tool-result";

// ---- /api/sessions (docs/api.md "REST") ----

/** Whether a session's container may reach the internet (`egress`: the Berth-owned bridge) or nothing (`none`). */
export const NETWORK_MODES = ["none", "egress"] as const;
export const NetworkSchema = z.enum(NETWORK_MODES);
export type Network = z.infer<typeof NetworkSchema>;

/** `POST /api/sessions`. Declared env values are secrets: they reach the container, never a response. */
export const CreateSessionBodySchema = z.strictObject({
  name: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters").optional(),
  autonomy: AutonomySchema.default("default"),
  network: NetworkSchema.default("none"),
  env: z
    .record(z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "keys must match ^[A-Z_][A-Z0-9_]*$"), z.string().max(4096, "values must be at most 4096 bytes"))
    .refine((env) => Object.keys(env).length <= 32, "must have at most 32 keys")
    .default({}),
});
export type CreateSessionBody = z.infer<typeof CreateSessionBodySchema>;

/** `PATCH /api/sessions/:id`. */
export const UpdateSessionBodySchema = z.strictObject({ autonomy: AutonomySchema });
export type UpdateSessionBody = z.infer<typeof UpdateSessionBodySchema>;

/** A session as every session route returns it. `status` is the row's (starting, ready, stopped, failed, deleted). */
export const SessionViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  ownerId: z.string(),
  status: z.string(),
  autonomy: AutonomySchema,
  network: NetworkSchema,
  terminationCause: z.string().nullable(),
  terminatedAt: z.string().nullable(),
  /** Who last changed autonomy after creation, and when (null: as created). */
  autonomyChangedBy: z.string().nullable(),
  autonomyChangedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type SessionView = z.infer<typeof SessionViewSchema>;

/** `GET /api/sessions/:id`: the view plus the names of the declared env variables (never their values). */
export const SessionDetailSchema = SessionViewSchema.extend({ envKeys: z.array(z.string()) });
export type SessionDetail = z.infer<typeof SessionDetailSchema>;

/** `GET /api/sessions`. */
export const SessionListSchema = z.object({ sessions: z.array(SessionViewSchema) });

// ---- /api/sessions/:id/tools/:tool ----

/** `POST /api/sessions/:id/tools/:tool`: `args` are the tool's own, checked by its schema. */
export const ToolCallBodySchema = z.object({ args: z.unknown().optional() });
export type ToolCallBody = z.infer<typeof ToolCallBodySchema>;

/** `?wait=<ms>`: how long a parked call holds the request for the operator's decision. */
export const ToolCallQuerySchema = z.object({
  wait: z.coerce.number().int().min(0, "must be ≥ 0").max(600_000, "must be at most 600000").optional(),
  /** A request-level allowlist: comma-separated tool names; nothing else is callable in this request. */
  tools: z.string().max(4096, "must be at most 4096 characters").optional(),
  /** A request-level allowlist: comma-separated MCP server ids or names. */
  servers: z.string().max(4096, "must be at most 4096 characters").optional(),
});

/**
 * A call waiting for an operator (REST 202, or a socket `tool:call` ack): re-issuing the identical call with
 * `?wait=` reuses this approval, and runs once it is approved.
 */
export const ParkedCallSchema = z.object({
  status: z.literal("parked"),
  approvalId: z.string(),
  text: z.string(),
  sha256: z.string(),
  expiresAt: z.string().optional(),
});
export type ParkedCall = z.infer<typeof ParkedCallSchema>;

/** What a tool call answers: its result, or the parked request. */
export const ToolCallAnswerSchema = z.union([ParkedCallSchema, ToolResultSchema]);
export type ToolCallAnswer = z.infer<typeof ToolCallAnswerSchema>;

export function isParkedCall(value: unknown): value is ParkedCall {
  return ParkedCallSchema.safeParse(value).success;
}
