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
  WORKSPACE_ROOT,
  isBuiltinToolName,
} from "@berth/protocol";
import type { BuiltinToolName, ToolResult } from "@berth/protocol";
import type { z } from "zod";
import { gatewayTool } from "../gateway/gateway-tool";
import { dispatchTool } from "../orchestration/dispatch-tool";
import { monitorTool } from "../orchestration/monitor-tool";
import { classifyCommand, classifyRunScript, type ClassifyOptions } from "../shell";
import { defineTool, fixedClass } from "../registry/define-tool";
import { codeNavTool } from "../code-nav/code-nav-tool";
import type { AnyToolSpec, BoundFiles, CallClassification, ClassifyContext, ToolContext } from "../registry/tool-spec";
import { patchTargets } from "./patch-targets";
import { contextTool } from "../context/context-tool";

/** Built-in tools run in the session's agent, which validates again and confines paths. */
function inSandbox<T>(name: string) {
  return (args: T, ctx: ToolContext) => ctx.sandbox.callTool(name, args, { callId: ctx.callId, ...(ctx.signal ? { signal: ctx.signal } : {}) });
}

/** Classification without a session (a dry run, a test): the workspace root and nothing writable beside it. */
const NO_SESSION: ClassifyContext = { workspaceRoot: WORKSPACE_ROOT };

function shellOptions(ctx: ClassifyContext, cwd?: unknown): ClassifyOptions {
  return {
    workspaceRoot: ctx.workspaceRoot,
    ...(ctx.writableRoots ? { writableRoots: ctx.writableRoots } : {}),
    ...(typeof cwd === "string" && cwd ? { cwd } : {}),
  };
}

/** The path a successful single-file write reports (write_file, edit). */
const writtenPath = (result: ToolResult): string[] =>
  result.ok && typeof result.details?.path === "string" ? [result.details.path] : [];

/** A command may have touched anything: "." asks clients to refresh the whole tree. */
const ANYTHING = ["."];

type BashArgs = z.infer<typeof BashArgsSchema>;
/** Arguments as admission may see them: validated by the registry, or raw where a dry run passes them on. */
type Loose<T> = { [K in keyof T]?: unknown };

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
  boundFiles: (args) => pathBound(args),
  changedPaths: (_args, result) => writtenPath(result),
  run: inSandbox("write_file"),
});

export const editTool = defineTool({
  name: "edit",
  description:
    "Replace an exact string in a file. old_string must match exactly once (whitespace included) unless replaceAll=true. CRLF files keep CRLF.",
  argsSchema: EditArgsSchema,
  resultSchema: EditDetailsSchema,
  classify: fixedClass("write"),
  boundFiles: (args) => pathBound(args),
  changedPaths: (_args, result) => writtenPath(result),
  run: inSandbox("edit"),
});

export const applyPatchTool = defineTool({
  name: "apply_patch",
  description:
    "Apply a patch to one or more files atomically: either the '*** Begin Patch' … '*** End Patch' format (Add File / Delete File / Update File with @@ hunks, optional Move to) or a unified diff as `git diff` prints. If any part fails, nothing changes.",
  argsSchema: ApplyPatchArgsSchema,
  resultSchema: ApplyPatchDetailsSchema,
  classify: fixedClass("write"),
  boundFiles: (args) => {
    const patch = (args as Loose<typeof args>).patch;
    return typeof patch === "string" ? { paths: patchTargets(patch) } : undefined;
  },
  changedPaths: (_args, result) => {
    const changes = result.ok ? result.details?.fileChanges : undefined;
    return Array.isArray(changes) ? (changes as { path?: unknown }[]).flatMap((change) => (typeof change.path === "string" ? [change.path] : [])) : [];
  },
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
  classify: (args: BashArgs, ctx = NO_SESSION): CallClassification => {
    const a = args as Loose<BashArgs>;
    const action = typeof a.action === "string" ? a.action : "exec";
    if (action === "exec" || action === "start") return classifyCommand(typeof a.command === "string" ? a.command : "", shellOptions(ctx, a.cwd));
    if (action === "write") {
      // Input to a process the session started is admitted as its start was; to any other, as a
      // command of unknown class would be.
      const processId = typeof a.processId === "string" ? a.processId : "";
      const started = ctx.processClass?.(processId);
      if (started !== undefined) {
        return {
          actionClass: started.actionClass,
          recognised: started.recognised ?? false,
          alwaysAsk: started.alwaysAsk ?? false,
          reasons: [...(started.reasons ?? []), `bash write sends input to ${processId}, admitted as its start was`],
        };
      }
      return {
        actionClass: "unknown",
        recognised: false,
        alwaysAsk: false,
        reasons: [`bash write sends input to ${processId || "a process"}, which this session did not start [unknown]`],
      };
    }
    // stop ends a process that was admitted when it started; status/list/logs read.
    return { actionClass: action === "stop" ? "execute" : "read", recognised: true, alwaysAsk: false, reasons: [] };
  },
  createsRun: (args: BashArgs) => args.action === "exec" || args.action === "start",
  runKind: (args: BashArgs) => (args.action === "start" ? "process" : "bash"),
  startedProcess: (args: BashArgs, result) =>
    args.action === "start" && result.ok && typeof result.details?.processId === "string" ? result.details.processId : undefined,
  // bash list, status, logs and stop run no command, so they change nothing (the IDE lists processes on every load).
  changedPaths: (args: BashArgs) => (args.action === "exec" || args.action === "start" ? ANYTHING : []),
  run: inSandbox("bash"),
});

export const updateAgentsMdTool = defineTool({
  name: "update_agents_md",
  description: "Read, write or append to AGENTS.md at the workspace root: the memory file agents keep for this project.",
  argsSchema: UpdateAgentsMdArgsSchema,
  resultSchema: UpdateAgentsMdDetailsSchema,
  classify: (args) => fixedClass(args.action === "read" ? "read" : "write")(),
  changedPaths: (_args, result) => (result.ok ? ANYTHING : []),
  run: inSandbox("update_agents_md"),
});

export const runScriptTool = defineTool({
  name: "run_script",
  description:
    "Run a script file from the workspace with an interpreter (python3, python, node, bash, sh, Rscript, julia, perl, ruby, octave). Streams output live, records a run with full logs, hashes of the script and declared inputs/outputs, and a signed receipt.",
  argsSchema: RunScriptArgsSchema,
  resultSchema: RunScriptDetailsSchema,
  classify: (args, ctx = NO_SESSION) => {
    const a = args as Loose<typeof args>;
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
    return classifyRunScript(
      {
        interpreter: String(a.interpreter ?? ""),
        script: String(a.script ?? ""),
        args: strings(a.args),
        interpreterArgs: strings(a.interpreterArgs),
        ...(typeof a.cwd === "string" ? { cwd: a.cwd } : {}),
      },
      shellOptions(ctx),
    );
  },
  createsRun: () => true,
  runKind: () => "run_script",
  // The script and its declared inputs: what runs, and what it reads.
  boundFiles: (args) => {
    const a = args as Loose<typeof args>;
    const inputs = Array.isArray(a.inputs) ? a.inputs.filter((v): v is string => typeof v === "string") : [];
    return typeof a.script === "string" ? { paths: [...new Set([a.script, ...inputs])], preview: a.script } : undefined;
  },
  // A failed script may have written as much as a successful one.
  changedPaths: () => ANYTHING,
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
  code_nav: codeNavTool,
  bash: bashTool,
  run_script: runScriptTool,
  update_agents_md: updateAgentsMdTool,
  gateway: gatewayTool,
  monitor: monitorTool,
  dispatch: dispatchTool,
  context: contextTool,
} as const satisfies { readonly [K in BuiltinToolName]: AnyToolSpec & { name: K } };

/** Every built-in tool, in the tool table's order: what the router is built with. */
export const BUILTIN_TOOLS: readonly AnyToolSpec[] = BUILTIN_TOOL_NAMES.map((name) => BUILTIN_TOOL_SPECS[name]);

/** The built-in spec of a name, or undefined for any other tool (MCP, function tools). */
export function builtinSpecOf(name: string): AnyToolSpec | undefined {
  return isBuiltinToolName(name) ? BUILTIN_TOOL_SPECS[name] : undefined;
}

/** The files whose content an approval of a built-in call binds; undefined for calls that bind none. */
export function boundFilesOf(tool: string, args: unknown): BoundFiles | undefined {
  return builtinSpecOf(tool)?.boundFiles?.(args);
}

function pathBound(args: { path?: unknown }): BoundFiles | undefined {
  return typeof args.path === "string" ? { paths: [args.path] } : undefined;
}
