import { AppError } from "@berth/protocol";
import type { FastifyRequest } from "fastify";
import type { z } from "zod";
import type { Principal, Role } from "../auth/tokens";
import { formatIssues } from "../tools/tool-service";
import { requirePrincipal } from "./build-server";

/** safeParse at the boundary: a 400 naming each bad field. */
export function parse<T>(schema: z.ZodType<T>, value: unknown, what = "body"): T {
  const parsed = schema.safeParse(value ?? {});
  if (!parsed.success) throw new AppError({ code: "bad_request", message: `Invalid ${what}: ${formatIssues(parsed.error)}` });
  return parsed.data;
}

const RANK: Record<Role, number> = { viewer: 0, developer: 1, operator: 2, admin: 3 };

/** The caller, if their role is at least `role` (admin > operator > developer > viewer). */
export function requireRole(request: FastifyRequest, role: Role): Principal {
  const principal = requirePrincipal(request);
  if (RANK[principal.role] < RANK[role]) throw new AppError({ code: "forbidden", message: `This needs the ${role} role (you are ${principal.role})` });
  return principal;
}
