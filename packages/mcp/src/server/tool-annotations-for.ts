import type { ActionClass } from "@berth/protocol";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";

/**
 * MCP annotations derived from the action class. Hints only (clients may show them, never rely on
 * them); admission still decides every call. Set explicitly because MCP's defaults are the worst case
 * (destructive, open world).
 */
export function toolAnnotationsFor(actionClass: ActionClass): ToolAnnotations {
  switch (actionClass) {
    case "read":
      return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    case "write":
    case "execute":
    case "system_modify":
    case "git_destructive":
      return { readOnlyHint: false, destructiveHint: true, openWorldHint: false };
    case "network":
      return { readOnlyHint: false, destructiveHint: false, openWorldHint: true };
    // dispatch runs other tools and unknown is unknown: claim nothing beyond "not read-only".
    case "dispatch":
    case "unknown":
      return { readOnlyHint: false, destructiveHint: true, openWorldHint: true };
  }
}

/**
 * Annotations of a tool that calls others (gateway, dispatch), from everything it can reach in the
 * session: read-only only if all of it is, destructive or open-world if any of it is. Reaching nothing
 * is read-only (gateway still finds and describes).
 */
export function toolAnnotationsForReach(reach: readonly ActionClass[]): ToolAnnotations {
  const hints = reach.map(toolAnnotationsFor);
  const readOnly = hints.every((h) => h.readOnlyHint === true);
  return {
    readOnlyHint: readOnly,
    destructiveHint: hints.some((h) => h.destructiveHint === true),
    ...(readOnly ? { idempotentHint: true } : {}),
    openWorldHint: hints.some((h) => h.openWorldHint === true),
  };
}
