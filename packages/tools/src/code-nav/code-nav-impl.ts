import type { CodeNavArgs } from "@berth/protocol";
import { defineTool } from "../registry/define-tool";
import { CODE_NAV_SURFACE } from "./code-nav-surface";

/** code_nav's implementation: the agent in the session's container holds the index and answers. */
export const codeNavImplementation = defineTool({
  ...CODE_NAV_SURFACE,
  run: (args: CodeNavArgs, ctx) =>
    ctx.sandbox.callTool("code_nav", args, { callId: ctx.callId, ...(ctx.signal ? { signal: ctx.signal } : {}) }),
});
