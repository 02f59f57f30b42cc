import type { ActionClass } from "@berth/protocol";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";

/**
 * The action class admission should start from for an upstream tool. Annotations come from a server we
 * do not control, so by default they are ignored: an http tool is `network` (the call leaves the
 * runner), a stdio tool `unknown`; both ask under default autonomy until a policy rule allows the tool.
 * With `trustAnnotations` (an operator's choice per server), read-only closed-world tools become `read`.
 */
export function actionClassOfMcpTool(
  tool: { annotations?: ToolAnnotations | undefined; transport: "stdio" | "http" },
  opts: { trustAnnotations?: boolean } = {},
): ActionClass {
  const a = tool.annotations;
  if (opts.trustAnnotations && a?.readOnlyHint === true && a.openWorldHint === false) return "read";
  return tool.transport === "http" ? "network" : "unknown";
}
