import { ApplyPatchArgsSchema } from "@berth/protocol";
import { defineTool } from "../tools/tool-context";
import { fail } from "../tools/tool-failure-error";

export const applyPatchTool = defineTool({
  name: "apply_patch",
  schema: ApplyPatchArgsSchema,
  mutates: true,
  async run() {
    return fail("not_implemented", "apply_patch is not implemented yet");
  },
});
