import type { FastifyRequest } from "fastify";
import { authorize, listScope, type Action, type Resource, type Target } from "../auth/authorize";
import type { Principal } from "../auth/tokens";
import { requirePrincipal } from "./build-server";

/** The caller, once `authorize` allows them `action` on `resource` (docs/api.md, Roles); throws 401/403/404 otherwise. */
export function authorized<R extends Resource>(
  request: FastifyRequest,
  resource: R,
  action: Action<R>,
  target?: Target,
): Principal {
  const principal = requirePrincipal(request);
  authorize(principal, resource, action, target);
  return principal;
}

/** For a list: `{}` when the caller may list anyone's, `{ ownerId }` when only their own (403 when neither). */
export function listScopeOf<R extends Resource>(
  request: FastifyRequest,
  resource: R,
  action: Action<R>,
): { ownerId?: string } {
  return listScope(requirePrincipal(request), resource, action);
}
