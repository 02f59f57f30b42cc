import { z } from "zod";

// ---- GET /healthz (no auth; 503 with the same body when a part is down) ----

export const HealthSchema = z.object({
  ok: z.boolean(),
  docker: z.object({ ok: z.boolean(), version: z.string().optional(), error: z.string().optional() }),
  db: z.object({ ok: z.boolean(), latencyMs: z.number(), error: z.string().optional() }),
});
export type Health = z.infer<typeof HealthSchema>;
