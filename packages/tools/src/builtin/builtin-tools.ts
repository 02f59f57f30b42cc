import {
  ApplyPatchArgsSchema,
  ApplyPatchDetailsSchema,
  BashArgsSchema,
  BashDetailsSchema,
  EditArgsSchema,
  EditDetailsSchema,
  GlobArgsSchema,
  GlobDetailsSchema,
  GrepArgsSchema,
  GrepDetailsSchema,
  ReadFileArgsSchema,
  ReadFileDetailsSchema,
  RunScriptArgsSchema,
  RunScriptDetailsSchema,
  UpdateAgentsMdArgsSchema,
  UpdateAgentsMdDetailsSchema,
  WriteFileArgsSchema,
  WriteFileDetailsSchema,
  BUILTIN_TOOL_NAMES,
  isBuiltinToolName,
} from "@berth/protocol";
import type { BuiltinToolName } from "@berth/protocol";
import type { z } from "zod";
import { gatewayTool } from "../gateway/gateway-tool";
import { dispatchTool } from "../orchestration/dispatch-tool";
import { monitorTool } from "../orchestration/monitor-tool";
import { classifyCommand, classifyRunScript } from "../shell";
import { defineTool, fixedClass } from "../registry/define-tool";
import type { AnyToolSpec, CallClassification, ToolContext } from "../registry/tool-spec";

/** The workspace root inside every sandbox; classification resolves paths against it. */
export const WORKSPACE_ROOT = "/workspace";

/** Built-in tools run in the session's agent, which validates again and confines paths. */
function inSandbox<T>(name: string) {
  return (args: T, ctx: ToolContext) => ctx.sandbox.callTool(name, args, { callId: ctx.callId, ...(ctx.signal ? { signal: ctx.signal } : {}) });
}

function fromCommand(command: string, cwd: string | undefined): CallClassification {
  const result = classifyCommand(command, { workspaceRoot: WORKSPACE_ROOT, ...(cwd ? { cwd } : {}) });
  return { actionClass: result.actionClass, recognised: result.recognised, alwaysAsk: result.alwaysAsk, reasons: result.reasons };
}

type BashArgs = z.infer<typeof BashArgsSchema>;

export const readFileTool = defineTool({
  name: "read_file",
  description:
    "Read a text file in the workspace, optionally a line range (1-based). Returns the content with its line numbers range, total lines and whether it was truncated (continue from nextStartLine). Use encoding=base64 for binary files.",
  argsSchema: ReadFileArgsSchema,
  resultSchema: ReadFileDetailsSchema,
  classify: fixedClass("read"),
  run: inSandbox("read_file"),
});

export const writeFileTool = defineTool({
  name: "write_file",
  description:
    "Write a file in the workspace atomically, creating parent folders. mode: overwrite (default), create (fails if the file exists) or append.",
  argsSchema: WriteFileArgsSchema,
  resultSchema: WriteFileDetailsSchema,
  classify: fixedClass("write"),
  run: inSandbox("write_file"),
});

export const editTool = defineTool({
  name: "edit",
  description:
    "Replace an exact string in a file. old_string must match exactly once (whitespace included) unless replaceAll=true. CRLF files keep CRLF.",
  argsSchema: EditArgsSchema,
  resultSchema: EditDetailsSchema,
  classify: fixedClass("write"),
  run: inSandbox("edit"),
});

export const applyPatchTool = defineTool({
  name: "apply_patch",
  description:
    "Apply a patch to one or more files atomically: either the '*** Begin Patch' … '*** End Patch' format (Add File / Delete File / Update File with @@ hunks, optional Move to) or a unified diff as `git diff` prints. If any part fails, nothing changes.",
  argsSchema: ApplyPatchArgsSchema,
  resultSchema: ApplyPatchDetailsSchema,
  classify: fixedClass("write"),
  run: inSandbox("apply_patch"),
});

export const globTool = defineTool({
  name: "glob",
  description:
    "List files matching a glob pattern (`**/` matches zero or more folders), sorted, relative to the workspace root. Skips .git, and node_modules/dist/build/target/.venv unless includeIgnored.",
  argsSchema: GlobArgsSchema,
  resultSchema: GlobDetailsSchema,
  classify: fixedClass("read"),
  run: inSandbox("glob"),
});

export const grepTool = defineTool({
  name: "grep",
  description:
    "Search file contents with a regular expression (ripgrep). Optional include glob on file names, case-insensitive, literal, context lines. Results sorted by file and line.",
  argsSchema: GrepArgsSchema,
  resultSchema: GrepDetailsSchema,
  classify: fixedClass("read"),
  run: inSandbox("grep"),
});

export const bashTool = defineTool({
  name: "bash",
  description:
    "Run shell commands in the workspace. action=exec (default) runs a command to completion with stdin closed (timeoutMs, default 30 s); for servers and long jobs use action=start, then status/list/logs/write/stop with the processId.",
  argsSchema: BashArgsSchema,
  resultSchema: BashDetailsSchema,
  classify: (args: BashArgs): CallClassification => {
    switch (args.action) {
      case "exec":
      case "start":
        return fromCommand(args.command ?? "", args.cwd);
      case "status":
      case "list":
      case "logs":
        return fixedClass("read")();
      default:
        // write/stop touch a process that was admitted when it started.
        return fixedClass("execute")();
    }
  },
  createsRun: (args: BashArgs) => args.action === "exec" || args.action === "start",
  run: inSandbox("bash"),
});

export const updateAgentsMdTool = defineTool({
  name: "update_agents_md",
  description: "Read, write or append to AGENTS.md at the workspace root: the memory file agents keep for this project.",
  argsSchema: UpdateAgentsMdArgsSchema,
  resultSchema: UpdateAgentsMdDetailsSchema,
  classify: (args) => fixedClass(args.action === "read" ? "read" : "write")(),
  run: inSandbox("update_agents_md"),
});

export const runScriptTool = defineTool({
  name: "run_script",
  description:
    "Run a script file from the workspace with an interpreter (python3, python, node, bash, sh, Rscript, julia, perl, ruby, octave). Streams output live, records a run with full logs, hashes of the script and declared inputs/outputs, and a signed receipt.",
  argsSchema: RunScriptArgsSchema,
  resultSchema: RunScriptDetailsSchema,
  classify: (args) => {
    const result = classifyRunScript(args, { workspaceRoot: WORKSPACE_ROOT });
    return { actionClass: result.actionClass, recognised: result.recognised, alwaysAsk: result.alwaysAsk, reasons: result.reasons };
  },
  createsRun: () => true,
  run: inSandbox("run_script"),
});

/**
 * Every built-in tool's spec by name. `satisfies` a row per BuiltinToolName: a name added to the table
 * does not compile until it has its spec here, and each row's spec carries its own name.
 */
export const BUILTIN_TOOL_SPECS = {
  read_file: readFileTool,
  write_file: writeFileTool,
  edit: editTool,
  apply_patch: applyPatchTool,
  glob: globTool,
  grep: grepTool,
  bash: bashTool,
  run_script: runScriptTool,
  update_agents_md: updateAgentsMdTool,
  gateway: gatewayTool,
  monitor: monitorTool,
  dispatch: dispatchTool,
} as const satisfies { readonly [K in BuiltinToolName]: AnyToolSpec & { name: K } };

/** Every built-in tool, in the tool table's order: what the router is built with. */
export const BUILTIN_TOOLS: readonly AnyToolSpec[] = BUILTIN_TOOL_NAMES.map((name) => BUILTIN_TOOL_SPECS[name]);

/** The built-in spec of a name, or undefined for any other tool (MCP, function tools). */
export function builtinSpecOf(name: string): AnyToolSpec | undefined {
  return isBuiltinToolName(name) ? BUILTIN_TOOL_SPECS[name] : undefined;
}
