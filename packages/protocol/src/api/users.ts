import { z } from "zod";

// ---- /api/users, /api/tokens, /api/me (docs/api.md "REST" and "Roles") ----

export const ROLES = ["admin", "operator", "developer", "viewer"] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

/** `POST /api/users`. */
export const CreateUserBodySchema = z.strictObject({ name: z.string().trim().min(1, "must not be empty").max(100), role: RoleSchema });
export type CreateUserBody = z.infer<typeof CreateUserBodySchema>;

/** `PATCH /api/users/:id`: disabling refuses the user's tokens and ends their sockets; enabling lets them work again. */
export const UpdateUserBodySchema = z.strictObject({ disabled: z.boolean() });
export type UpdateUserBody = z.infer<typeof UpdateUserBodySchema>;

/** `POST /api/tokens`. */
export const CreateTokenBodySchema = z.strictObject({ userId: z.string().min(1), name: z.string().max(100).optional() });
export type CreateTokenBody = z.infer<typeof CreateTokenBodySchema>;

/** `POST /api/users` → 201. */
export const CreatedUserSchema = z.object({ id: z.string(), name: z.string(), role: RoleSchema });

/** A user as `GET /api/users` and `PATCH /api/users/:id` return them. */
export const UserViewSchema = CreatedUserSchema.extend({ createdAt: z.string(), disabled: z.boolean() });
export type UserView = z.infer<typeof UserViewSchema>;

export const UserListSchema = z.object({ users: z.array(UserViewSchema) });

/** An API token as an admin sees it: never the token itself (only its hash is stored). */
export const ApiTokenViewSchema = z.object({
  id: z.string(),
  userId: z.string(),
  userName: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ApiTokenView = z.infer<typeof ApiTokenViewSchema>;

export const ApiTokenListSchema = z.object({ tokens: z.array(ApiTokenViewSchema) });

/** `POST /api/tokens` → 201: the token is shown in this answer only. */
export const IssuedTokenSchema = z.object({ id: z.string(), token: z.string() });

/** `GET /api/me`: who the caller is (`tokenId` is the credential presented). */
export const MeSchema = z.object({
  userId: z.string(),
  name: z.string(),
  role: RoleSchema,
  tokenId: z.string().optional(),
  credential: z.enum(["token", "browser"]).optional(),
});
export type Me = z.infer<typeof MeSchema>;
