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
