// Type tests (checked by `npm run typecheck`, never run): every BuiltinToolName has its spec, under its own name.
import type { BuiltinToolName } from "@berth/protocol";
import type { AnyToolSpec } from "../registry/tool-spec";
import { BUILTIN_TOOL_SPECS, readFileTool } from "./builtin-tools";
import { defineTool } from "../registry/define-tool";
import { z } from "zod";

type SpecTable<N extends string> = { readonly [K in N]: AnyToolSpec & { name: K } };

// @ts-expect-error -- a name added to the table before its spec: BUILTIN_TOOL_SPECS has no new_tool
export const _missingSpec: SpecTable<BuiltinToolName | "new_tool"> = BUILTIN_TOOL_SPECS;

// @ts-expect-error -- a spec filed under another tool's name
export const _wrongRow: SpecTable<BuiltinToolName> = { ...BUILTIN_TOOL_SPECS, grep: readFileTool };

export const _notBuiltin = defineTool({
  // @ts-expect-error -- defineTool takes only built-in names (the table has no row for it)
  name: "web_fetch",
  description: "",
  argsSchema: z.object({}),
  classify: () => ({ actionClass: "network", recognised: false, alwaysAsk: false, reasons: [] }),
  run: () => Promise.resolve({ ok: true, output: "" }),
});
