import { z } from "zod";
import { McpServerScopeSchema, McpToolAcceptBodySchema, McpToolPinSchema, McpToolPinStatusSchema, McpTransportSchema } from "../mcp";

// ---- /api/mcp-servers (docs/api.md "REST"): the register body is McpServerConfigSchema (mcp.ts) ----

/**
 * A registered server as the API returns it: header values are secrets, so only their names leave the
 * runner (`headerNames`), and a URL's `user:pass@` is `[REDACTED]@`.
 */
export const McpServerViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  transport: McpTransportSchema,
  scope: McpServerScopeSchema,
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  url: z.string().optional(),
  headerNames: z.array(z.string()).optional(),
  /** Who registered it; for `scope: "user"` the only user who sees its tools. */
  ownerUserId: z.string(),
  createdAt: z.string(),
});
export type McpServerView = z.infer<typeof McpServerViewSchema>;

export const McpServerListSchema = z.object({ servers: z.array(McpServerViewSchema) });

/** A tool pin with whether it is held (its schema changed since it was accepted: every call asks). */
export const McpToolPinViewSchema = McpToolPinSchema.extend({ status: McpToolPinStatusSchema });
export type McpToolPinView = z.infer<typeof McpToolPinViewSchema>;

export const McpToolPinListSchema = z.object({ pins: z.array(McpToolPinViewSchema) });

/** `POST /api/mcp-servers/:id/accept`: the server comes from the path, so the body carries the tool and the hash reviewed. */
export const McpToolAcceptRouteBodySchema = McpToolAcceptBodySchema.omit({ serverId: true });
export type McpToolAcceptRouteBody = z.infer<typeof McpToolAcceptRouteBodySchema>;
