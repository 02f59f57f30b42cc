import type { z } from "zod";
import {
  ApplyPatchArgsSchema,
  ApprovalDecisionBodySchema,
  CreatePolicyRuleBodySchema,
  CreateSessionBodySchema,
  CreateTokenBodySchema,
  CreateUserBodySchema,
  BashArgsSchema,
  CLIENT_EVENT_PAYLOADS,
  EditArgsSchema,
  GlobArgsSchema,
  GrepArgsSchema,
  McpServerConfigSchema,
  McpToolAcceptRouteBodySchema,
  MintBrowserSessionBodySchema,
  ReadFileArgsSchema,
  RunScriptArgsSchema,
  SkillBodySchema,
  SkillUpdateBodySchema,
  ToolCallBodySchema,
  UpdateSessionBodySchema,
  UpdateUserBodySchema,
  UpdateAgentsMdArgsSchema,
  VerifyReceiptRequestSchema,
  WriteFileArgsSchema,
} from "@berth/protocol";

/** The body schema of each REST route that reads one ("METHOD /route" as registered). */
export const ROUTE_BODIES: Record<string, z.ZodType> = {
  "POST /api/sessions": CreateSessionBodySchema,
  "PATCH /api/sessions/:id": UpdateSessionBodySchema,
  "POST /api/sessions/:id/tools/:tool": ToolCallBodySchema,
  "POST /api/skills": SkillBodySchema,
  "PUT /api/skills/:name": SkillUpdateBodySchema,
  "POST /api/policy-rules": CreatePolicyRuleBodySchema,
  "POST /api/receipts/verify": VerifyReceiptRequestSchema,
  "POST /api/users": CreateUserBodySchema,
  "PATCH /api/users/:id": UpdateUserBodySchema,
  "POST /api/tokens": CreateTokenBodySchema,
  "POST /api/browser-sessions": MintBrowserSessionBodySchema,
  "POST /api/approvals/:id": ApprovalDecisionBodySchema,
  "POST /api/mcp-servers": McpServerConfigSchema,
  "POST /api/mcp-servers/:id/accept": McpToolAcceptRouteBodySchema,
};

/** The args schema of each built-in tool: `args` of a tool call, over REST and the socket. */
export const TOOL_ARGS: Record<string, z.ZodType> = {
  bash: BashArgsSchema,
  read_file: ReadFileArgsSchema,
  write_file: WriteFileArgsSchema,
  edit: EditArgsSchema,
  apply_patch: ApplyPatchArgsSchema,
  glob: GlobArgsSchema,
  grep: GrepArgsSchema,
  run_script: RunScriptArgsSchema,
  update_agents_md: UpdateAgentsMdArgsSchema,
};

/** The payload schema of each client → server socket event. */
export const EVENT_PAYLOADS: Record<string, z.ZodType> = CLIENT_EVENT_PAYLOADS;
