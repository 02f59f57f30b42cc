import { CodeNavArgsSchema } from "@berth/protocol";
import { defineTool } from "../tools/tool-context";

/**
 * code_nav's surface, registered with the other tools; the index and its queries (ctags, watchers, import
 * resolution) load on the first call, so an agent that never navigates never pays for them.
 */
export const codeNavTool = defineTool({
  name: "code_nav",
  schema: CodeNavArgsSchema,
  async run(args, ctx) {
    const { runCodeNav } = await import("./run-code-nav");
    return runCodeNav(args, ctx);
  },
});
