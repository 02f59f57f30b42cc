import type { z } from "zod";
import {
  ApplyPatchArgsSchema,
  ApprovalDecisionBodySchema,
  BashArgsSchema,
  EditArgsSchema,
  GlobArgsSchema,
  GrepArgsSchema,
  McpServerConfigSchema,
  PolicyRuleSchema,
  ReadFileArgsSchema,
  RunCancelRequestSchema,
  RunScriptArgsSchema,
  TerminalAttachSchema,
  TerminalCloseSchema,
  TerminalInputSchema,
  TerminalListSchema,
  TerminalOpenSchema,
  TerminalRenameSchema,
  TerminalResizeSchema,
  UpdateAgentsMdArgsSchema,
  WriteFileArgsSchema,
} from "@berth/protocol";
import { MintBodySchema } from "../http/routes/browser-sessions-routes";
import { AcceptBodySchema } from "../http/routes/mcp-servers-routes";
import { VerifyBodySchema } from "../http/routes/receipts-routes";
import { ToolCallBodySchema } from "../http/routes/sessions-routes";
import { SkillBodySchema, SkillUpdateSchema } from "../http/routes/skills-routes";
import { CreateTokenSchema, CreateUserSchema, UpdateUserSchema } from "../http/routes/users-routes";
import { CreateSessionBodySchema, UpdateSessionBodySchema } from "../sessions/session-service";
import { ProcessSubscribeSchema, RunSubscribeSchema, SessionRefSchema, ToolCallSchema } from "../sockets/socket-server";

/** The body schema of each REST route that reads one ("METHOD /route" as registered). */
export const ROUTE_BODIES: Record<string, z.ZodType> = {
  "POST /api/sessions": CreateSessionBodySchema,
  "PATCH /api/sessions/:id": UpdateSessionBodySchema,
  "POST /api/sessions/:id/tools/:tool": ToolCallBodySchema,
  "POST /api/skills": SkillBodySchema,
  "PUT /api/skills/:name": SkillUpdateSchema,
  "POST /api/policy-rules": PolicyRuleSchema.omit({ id: true }),
  "POST /api/receipts/verify": VerifyBodySchema,
  "POST /api/users": CreateUserSchema,
  "PATCH /api/users/:id": UpdateUserSchema,
  "POST /api/tokens": CreateTokenSchema,
  "POST /api/browser-sessions": MintBodySchema,
  "POST /api/approvals/:id": ApprovalDecisionBodySchema,
  "POST /api/mcp-servers": McpServerConfigSchema,
  "POST /api/mcp-servers/:id/accept": AcceptBodySchema,
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
export const EVENT_PAYLOADS: Record<string, z.ZodType> = {
  "session:join": SessionRefSchema,
  "session:leave": SessionRefSchema,
  "tool:call": ToolCallSchema,
  "process:subscribe": ProcessSubscribeSchema,
  "run:subscribe": RunSubscribeSchema,
  "run:cancel": RunCancelRequestSchema,
  "terminal:open": TerminalOpenSchema,
  "terminal:list": TerminalListSchema,
  "terminal:attach": TerminalAttachSchema,
  "terminal:input": TerminalInputSchema,
  "terminal:resize": TerminalResizeSchema,
  "terminal:rename": TerminalRenameSchema,
  "terminal:close": TerminalCloseSchema,
};
