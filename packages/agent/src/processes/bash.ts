import { stat } from "node:fs/promises";
import {
  BASH_STREAM_CAP_BYTES,
  BashArgsSchema,
  type BashArgs,
  type BashExecDetails,
} from "@berth/protocol";
import type { ToolResult } from "@berth/protocol";
import { defineTool, okResult, type ToolContext } from "../tools/tool-context";
import { fail } from "../tools/tool-failure-error";
import type { ResolvedPath } from "../workspace/workspace";
import { childEnv } from "./child-env";
import { HeadTailBuffer } from "./head-tail-buffer";
import { asWorkspaceUser } from "./launch";
import { runInGroup, signalNumber } from "./process-group";

export const bashTool = defineTool({
  name: "bash",
  schema: BashArgsSchema,
  async run(args, ctx) {
    const { processes } = ctx;
    switch (args.action) {
      case "exec":
        return exec(args, ctx);
      case "start": {
        const command = requireCommand(args);
        const cwd = await resolveCwd(args.cwd, ctx);
        const info = processes.start(command, cwd, childEnv(ctx.config, ctx.sessionEnv), ctx.callId);
        return okResult({
          processId: info.processId,
          status: info.status,
          pid: info.pid,
          command: info.command,
          cwd: info.cwd,
        });
      }
      case "status":
        return okResult(processes.get(args.processId));
      case "list": {
        const list = processes.list();
        return { ok: true, output: JSON.stringify(list), details: { processes: list } };
      }
      case "logs":
        return okResult(await processes.logs(args.processId, args.offset ?? 0, args.limit));
      case "write":
        if (args.input === undefined && !args.closeStdin)
          fail("invalid_args", "input: required for action=write (or set closeStdin=true)");
        return okResult(processes.write(args.processId, args.input, args.closeStdin ?? false));
      case "stop":
        return okResult(await processes.stop(args.processId));
    }
  },
});

function requireCommand(args: BashArgs): string {
  if (args.command === undefined) return fail("invalid_args", `command: required for action=${args.action}`);
  return args.command;
}

async function resolveCwd(cwd: string | undefined, { workspace }: ToolContext): Promise<ResolvedPath> {
  const resolved = await workspace.resolve(cwd ?? ".");
  const info = await stat(resolved.real).catch(() => undefined);
  if (!info?.isDirectory()) fail("not_found", `Directory not found: ${cwd ?? "."}`);
  return resolved;
}

async function exec(args: BashArgs, ctx: ToolContext): Promise<ToolResult> {
  const command = requireCommand(args);
  const cwd = await resolveCwd(args.cwd, ctx);
  const half = BASH_STREAM_CAP_BYTES / 2;
  const buffers = { stdout: new HeadTailBuffer(half, half), stderr: new HeadTailBuffer(half, half) };
  const result = await runInGroup({
    ...asWorkspaceUser(ctx.config, "bash", ["-c", command]),
    cwd: cwd.real,
    env: childEnv(ctx.config, ctx.sessionEnv),
    timeoutMs: args.timeoutMs,
    signal: ctx.signal,
    onOutput(stream, chunk, offset) {
      buffers[stream].push(chunk);
      ctx.output({ callId: ctx.callId, stream, offset }, chunk);
    },
  });
  if (result.spawnError) fail("spawn_failed", `bash: could not start: ${result.spawnError}`);
  let stderr = buffers.stderr.toString();
  if (result.timedOut) {
    stderr += `${stderr === "" || stderr.endsWith("\n") ? "" : "\n"}[Command timed out after ${args.timeoutMs} ms; its process group was killed. Use action="start" for long-running commands and read them with action="logs".]\n`;
  }
  const exitCode = result.timedOut ? -1 : (result.exitCode ?? (result.signal ? 128 + signalNumber(result.signal) : -1));
  const details: BashExecDetails = {
    exitCode,
    stdout: buffers.stdout.toString(),
    stderr,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    signal: result.signal,
    ...(result.aborted ? { aborted: true } : {}),
  };
  const trace = {
    stdoutBytes: buffers.stdout.total,
    stderrBytes: buffers.stderr.total,
    survivorsKilled: result.survivors,
  };
  if (result.aborted)
    return {
      ok: false,
      output: JSON.stringify(details),
      details: { ...details },
      trace,
      error: { code: "aborted", message: "Command aborted" },
    };
  if (result.timedOut) {
    return {
      ok: false,
      output: JSON.stringify(details),
      details: { ...details },
      trace,
      error: {
        code: "timeout",
        message: `Command timed out after ${args.timeoutMs} ms (timeoutMs); use action="start" for long-running commands`,
      },
    };
  }
  return okResult(details, trace);
}
