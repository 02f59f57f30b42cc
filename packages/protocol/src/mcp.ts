import { z } from "zod";

/**
 * MCP wire types (docs/api.md): servers registered through `/api/mcp-servers`, and the schema pins an
 * operator accepts when an upstream tool changes. The gateway and server exposure live in @berth/mcp.
 */

export const MCP_TRANSPORTS = ["stdio", "http"] as const;
export const McpTransportSchema = z.enum(MCP_TRANSPORTS);
export type McpTransport = z.infer<typeof McpTransportSchema>;

/** `global`: every user sees the server's tools; `user`: only the user who registered it does. */
export const McpServerScopeSchema = z.enum(["global", "user"]);
export type McpServerScope = z.infer<typeof McpServerScopeSchema>;

// Header names as HTTP allows them (RFC 9110 token); values must not smuggle a line break.
const HeaderName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "must be an HTTP header name");
const HeaderValue = z
  .string()
  .max(8192, "must be at most 8192 characters")
  .regex(/^[^\r\n]*$/, "must not contain a line break");

/**
 * Body of `POST /api/mcp-servers`. A stdio server is started inside the session's own container (never
 * on the host), so `command` names a program in the sandbox image; an http server is contacted by the
 * runner at `url`.
 */
const McpServerConfigObject = z.object({
  name: z
    .string()
    .min(1, "must not be empty")
    .max(64, "must be at most 64 characters")
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "must start with a letter or digit and use only letters, digits, _ . -"),
  transport: McpTransportSchema,
  command: z.string().min(1, "must not be empty").max(4096, "must be at most 4096 characters").optional(),
  args: z
    .array(z.string().max(4096, "must be at most 4096 characters"))
    .max(256, "must have at most 256 entries")
    .optional(),
  url: z.string().max(4096, "must be at most 4096 characters").optional(),
  headers: z.record(HeaderName, HeaderValue).optional(),
  scope: McpServerScopeSchema,
});

// One refinement for the config and the stored record, so both reject the same mistakes.
function checkTransportFields(cfg: z.infer<typeof McpServerConfigObject>, ctx: z.RefinementCtx): void {
  if (cfg.transport === "stdio") {
    if (!cfg.command)
      ctx.addIssue({ code: "custom", path: ["command"], message: "is required when transport is stdio" });
    if (cfg.url !== undefined)
      ctx.addIssue({ code: "custom", path: ["url"], message: "is only allowed when transport is http" });
    if (cfg.headers !== undefined)
      ctx.addIssue({ code: "custom", path: ["headers"], message: "is only allowed when transport is http" });
    return;
  }
  if (cfg.command !== undefined)
    ctx.addIssue({ code: "custom", path: ["command"], message: "is only allowed when transport is stdio" });
  if (cfg.args !== undefined)
    ctx.addIssue({ code: "custom", path: ["args"], message: "is only allowed when transport is stdio" });
  if (!cfg.url) {
    ctx.addIssue({ code: "custom", path: ["url"], message: "is required when transport is http" });
    return;
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(cfg.url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    ctx.addIssue({
      code: "custom",
      path: ["url"],
      message: `must be an http:// or https:// URL, got ${JSON.stringify(cfg.url.slice(0, 100))}`,
    });
  }
}

export const McpServerConfigSchema = McpServerConfigObject.superRefine(checkTransportFields);
export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;

export function isMcpServerConfig(value: unknown): value is McpServerConfig {
  return McpServerConfigSchema.safeParse(value).success;
}

/** A registered server as stored: the config plus who registered it. */
export const McpServerRecordSchema = McpServerConfigObject.extend({
  id: z.string().min(1),
  /** Who registered it; for `scope: "user"` the only user who sees its tools. */
  ownerUserId: z.string().min(1),
  createdAt: z.iso.datetime({ offset: true }),
}).superRefine(checkTransportFields);
export type McpServerRecord = z.infer<typeof McpServerRecordSchema>;

/**
 * What the API returns for a server: header values are secrets (API keys), so only their names leave
 * the runner.
 */
export function redactMcpServer<T extends { headers?: Record<string, string> | undefined }>(
  server: T,
): Omit<T, "headers"> & { headerNames?: string[] } {
  const { headers, ...rest } = server;
  return headers ? { ...rest, headerNames: Object.keys(headers) } : rest;
}

const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex characters");

/**
 * Schema pin of one upstream MCP tool: `schemaHash` is what the server offers now, `acceptedHash` what
 * an operator (or first sight) accepted. While they differ, the tool is held: every call asks.
 */
export const McpToolPinSchema = z.object({
  serverId: z.string().min(1),
  toolName: z.string().min(1),
  schemaHash: Sha256Hex,
  acceptedHash: Sha256Hex,
});
export type McpToolPin = z.infer<typeof McpToolPinSchema>;

export const McpToolPinStatusSchema = z.enum(["accepted", "held"]);
export type McpToolPinStatus = z.infer<typeof McpToolPinStatusSchema>;

/** REST body an operator sends to accept a changed tool: the hash they reviewed, so a newer change is not accepted blind. */
export const McpToolAcceptBodySchema = z.object({
  serverId: z.string().min(1, "must not be empty"),
  toolName: z.string().min(1, "must not be empty"),
  schemaHash: Sha256Hex,
});
export type McpToolAcceptBody = z.infer<typeof McpToolAcceptBodySchema>;
