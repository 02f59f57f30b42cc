import { RunScriptArgsSchema } from "@berth/protocol";
import { defineTool } from "../tools/tool-context";
import { fail } from "../tools/tool-failure-error";

export const runScriptTool = defineTool({
  name: "run_script",
  schema: RunScriptArgsSchema,
  mutates: false,
  argsErrorPrefix: "run_script: ",
  async run() {
    return fail("not_implemented", "run_script is not implemented yet");
  },
});
