import { z } from "zod";
import { type ActionClass, BuiltinTool, RUN_SCRIPT_MAX_ARG_BYTES } from "@berth/protocol";
import type { ToolSpec } from "../registry/tool-spec";
import { validateJsonSchema } from "./json-schema-subset";
import { FUNCTION_TOOLS_FILE, type FunctionToolDeclaration } from "./parse-function-tools-file";

/**
 * The arguments as the script gets them: validated against the declared schema (defaults filled in), and
 * small enough to be one argument of run_script (at most RUN_SCRIPT_MAX_ARG_BYTES of JSON).
 */
function argsSchemaOf(declaration: FunctionToolDeclaration): z.ZodType<Record<string, unknown>> {
  return z.unknown().transform((input, ctx) => {
    const checked = validateJsonSchema(declaration.parameters, input ?? {});
    if (!checked.ok) {
      for (const issue of checked.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
      return z.NEVER;
    }
    const bytes = Buffer.byteLength(JSON.stringify(checked.value));
    if (bytes > RUN_SCRIPT_MAX_ARG_BYTES) {
      ctx.addIssue({ code: "custom", message: `must be at most ${RUN_SCRIPT_MAX_ARG_BYTES} bytes as JSON (got ${bytes} bytes)` });
      return z.NEVER;
    }
    return checked.value as Record<string, unknown>;
  });
}

/**
 * A function tool declared in berth.tools.json as a ToolSpec under its exposed `name` (sanitised, perhaps
 * suffixed). It is admitted under that name and its declared class, and runs as run_script: the script gets
 * the validated arguments as one JSON argument (argv[1] after the script), and each call is a run with a
 * receipt. An approval binds the script and the declaration file, so neither can change between the operator's
 * decision and the run.
 */
/** A declared read or write runs a workspace script all the same: it is admitted as execute. */
export function admittedClass(declared: string): ActionClass {
  return declared === "read" || declared === "write" ? "execute" : (declared as ActionClass);
}

export function functionToolSpec(declaration: FunctionToolDeclaration, name: string): ToolSpec<Record<string, unknown>> {
  const { actionClass, script, interpreter } = declaration;
  const reads = actionClass === "read";
  return {
    name,
    description: declaration.description,
    argsSchema: argsSchemaOf(declaration),
    parameters: { ...declaration.parameters },
    executionMode: reads ? "parallel" : "sequential",
    // What find and describe show is what admission uses.
    actionClass: admittedClass(actionClass),
    // The workspace's word for what its script does can raise its class, never lower it below execute: an agent
    // can write berth.tools.json, so a script declared `read` must not run where `bash python3 it.py` would ask.
    // An operator's policy rule allowing the tool and naming its script's sha256 is how a trusted declaration runs
    // without asking.
    classify: () => ({
      actionClass: admittedClass(actionClass),
      recognised: false,
      alwaysAsk: false,
      reasons: [`function tool declared in ${FUNCTION_TOOLS_FILE} as ${actionClass}: ${interpreter} ${script}`],
    }),
    createsRun: () => true,
    runKind: () => "run_script",
    runsAs: BuiltinTool.run_script,
    boundFiles: () => ({ paths: [script, FUNCTION_TOOLS_FILE], preview: script }),
    // An operator's allow rule trusts this script's bytes (its sha256), never the name alone.
    trustedScript: () => script,
    // A script that may write may have written anything; a declared reader changes nothing.
    changedPaths: () => (reads ? [] : ["."]),
    async run(args, ctx) {
      const result = await ctx.sandbox.callTool(
        BuiltinTool.run_script,
        { interpreter, script, args: [JSON.stringify(args)], ...(declaration.timeoutMs ? { timeoutMs: declaration.timeoutMs } : {}) },
        { callId: ctx.callId, ...(ctx.signal ? { signal: ctx.signal } : {}) },
      );
      return { ...result, details: { ...result.details, functionTool: name } };
    },
  };
}
