import { z } from "zod";
import { RoleSchema } from "./users";

// ---- /api/browser-sessions (docs/api.md "Browser sessions") ----

export const USER_AGENT_MAX_CHARS = 512;

/** `POST /api/browser-sessions`: the web app mints one at sign-in with the token typed on its login page. */
export const MintBrowserSessionBodySchema = z.strictObject({
  /** The signing-in browser's User-Agent, shown in the list so a person can tell their sign-ins apart. */
  userAgent: z.string().max(USER_AGENT_MAX_CHARS, `must be at most ${USER_AGENT_MAX_CHARS} characters`).default(""),
});
export type MintBrowserSessionBody = z.infer<typeof MintBrowserSessionBodySchema>;

/** A sign-in as its owner (or an admin) lists it; never its secret. */
export const BrowserSessionViewSchema = z.object({
  id: z.string(),
  userId: z.string(),
  userName: z.string(),
  userAgent: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  /** The sign-in making this request. */
  current: z.boolean(),
});
export type BrowserSessionView = z.infer<typeof BrowserSessionViewSchema>;

export const BrowserSessionListSchema = z.object({ sessions: z.array(BrowserSessionViewSchema) });

/** `POST /api/browser-sessions` → 201: the secret is in this answer only; the web keeps it in an HttpOnly cookie. */
export const MintedBrowserSessionSchema = BrowserSessionViewSchema.extend({
  secret: z.string(),
  user: z.object({ userId: z.string(), name: z.string(), role: RoleSchema }),
});
export type MintedBrowserSession = z.infer<typeof MintedBrowserSessionSchema>;
