import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import {
  RUN_SCRIPT_MAX_HASH_BYTES,
  RUN_SCRIPT_TAIL_BYTES,
  RunScriptArgsSchema,
  type RunScriptDetails,
  type RunScriptOutcome,
  type RunScriptOutputHash,
} from "@berth/protocol";
import { childEnv } from "../processes/child-env";
import { asWorkspaceUser } from "../processes/launch";
import { type GroupRunResult, runInGroup, signalNumber } from "../processes/process-group";
import { StreamTail } from "../processes/stream-tail";
import { defineTool, type ToolContext } from "../tools/tool-context";
import { ToolFailureError, fail } from "../tools/tool-failure-error";
import type { ResolvedPath } from "../workspace/workspace";
import { findOnPath } from "./find-on-path";
import { hashFile } from "./hash-file";
import { changedMessage, firstChanged } from "./hash-files";
import { scriptCommand } from "./script-command";
import { readOomKills } from "./read-oom-kills";

/** Resolves a run_script path argument, turning any refusal into a `run_script: ` error naming the field. */
async function resolveArg(ctx: ToolContext, field: string, value: string): Promise<ResolvedPath> {
  try {
    return await ctx.workspace.resolve(value);
  } catch (error) {
    if (error instanceof ToolFailureError && error.code === "path_escape") {
      fail(
        "invalid_args",
        `run_script: ${field} must resolve inside the workspace root (got ${JSON.stringify(value)}): Path escapes workspace root: ${value}`,
      );
    }
    throw error;
  }
}

export function decideOutcome(
  run: Pick<GroupRunResult, "aborted" | "timedOut" | "signal" | "spawnError" | "exitCode" | "survivors">,
  oomKilled: boolean,
): RunScriptOutcome {
  if (run.aborted) return "aborted";
  if (run.timedOut) return "timed-out";
  if (oomKilled) return "oom-killed";
  if (run.spawnError !== undefined) return "spawn-failed";
  if (run.exitCode === 0 && run.survivors > 0) return "cleanup-incomplete";
  if (run.exitCode !== 0) return "failed";
  return "succeeded";
}

/**
 * The execution half of run_script: the runner assigns the run id and stores logs and the receipt
 * from what this returns and streams. Every refusal happens before anything runs.
 */
export const runScriptTool = defineTool({
  name: "run_script",
  schema: RunScriptArgsSchema,
  argsErrorPrefix: "run_script: ",
  async run(args, ctx) {
    const script = await resolveArg(ctx, "script", args.script);
    const scriptInfo = await stat(script.real).catch(() => undefined);
    if (!scriptInfo?.isFile())
      fail(
        "invalid_args",
        `run_script: script must be an existing file in the workspace (got ${JSON.stringify(args.script)})`,
      );
    if ((scriptInfo?.size ?? 0) > RUN_SCRIPT_MAX_HASH_BYTES)
      fail(
        "invalid_args",
        `run_script: script must be at most ${RUN_SCRIPT_MAX_HASH_BYTES} bytes (got ${scriptInfo?.size} bytes: ${JSON.stringify(args.script)})`,
      );
    // Read once: these bytes are hashed, checked against an approval, and are what the interpreter runs.
    const scriptBytes = await readFile(script.real);
    const scriptSha256 = createHash("sha256").update(scriptBytes).digest("hex");
    const approved = ctx.expect?.[args.script];
    const changed =
      approved !== undefined && approved !== scriptSha256
        ? changedMessage("run_script", args.script, approved, scriptSha256)
        : ctx.expect
          ? await firstChanged(ctx.workspace, "run_script", ctx.expect, new Set([args.script]))
          : undefined;
    if (changed) {
      return {
        ok: false,
        output: changed,
        details: {
          outcome: "refused",
          script: script.rel,
          scriptSha256,
          ...(approved !== undefined ? { approvedSha256: approved } : {}),
        },
        error: { code: "changed_since_approval", message: changed },
      };
    }
    const cwd = await resolveArg(ctx, "cwd", args.cwd);
    if (!(await stat(cwd.real).catch(() => undefined))?.isDirectory()) {
      fail(
        "invalid_args",
        `run_script: cwd must be an existing folder in the workspace (got ${JSON.stringify(args.cwd)})`,
      );
    }
    const inputs = await Promise.all(args.inputs.map((p, i) => resolveArg(ctx, `inputs[${i}]`, p)));
    const outputs = await Promise.all(args.outputs.map((p, i) => resolveArg(ctx, `outputs[${i}]`, p)));

    const env = childEnv(ctx.config, ctx.sessionEnv, args.env);
    const interpreterPath = await findOnPath(args.interpreter, env.PATH ?? "");
    const inputHashes = await Promise.all(inputs.map((f) => hashFile(f.real, f.rel)));
    const outputsBefore = await Promise.all(outputs.map((f) => hashFile(f.real, f.rel)));
    const oomBefore = await readOomKills([ctx.config.memoryEventsPath, ctx.config.oomControlPath]);

    const command = interpreterPath
      ? scriptCommand(args.interpreter, interpreterPath, args.interpreterArgs, script.real, args.args)
      : [];
    // Copies of each stream's end: the chunks themselves are lent buffers, read into again once their frame is out.
    const tails = { stdout: new StreamTail(RUN_SCRIPT_TAIL_BYTES), stderr: new StreamTail(RUN_SCRIPT_TAIL_BYTES) };
    const startedAt = new Date();
    const run: GroupRunResult = interpreterPath
      ? await runInGroup({
          ...asWorkspaceUser(ctx.config, command[0] as string, command.slice(1)),
          cwd: cwd.real,
          env,
          timeoutMs: args.timeoutMs,
          signal: ctx.signal,
          fd3: scriptBytes,
          // Output in bulk: read through FIFOs into reused buffers, each given back once its frame has been written.
          fifoDir: ctx.config.stateDir,
          onOutput(stream, chunk, offset, release) {
            tails[stream].push(chunk);
            ctx.output({ callId: ctx.callId, stream, offset }, chunk, release);
          },
        })
      : {
          exitCode: null,
          signal: null,
          timedOut: false,
          aborted: ctx.signal.aborted,
          spawnError: `interpreter ${args.interpreter} was not found on PATH`,
          survivors: 0,
          startedAt,
          endedAt: new Date(),
          durationMs: 0,
        };

    const oomAfter = await readOomKills([ctx.config.memoryEventsPath, ctx.config.oomControlPath]);
    const oomKilled = run.signal === "SIGKILL" && oomBefore !== null && oomAfter !== null && oomAfter > oomBefore;
    const outputHashes: RunScriptOutputHash[] = await Promise.all(
      outputs.map(async (f, i) => {
        const after = await hashFile(f.real, f.rel);
        const before = outputsBefore[i];
        const existedBefore = before?.note !== "absent";
        const status: RunScriptOutputHash["status"] =
          after.note === "absent"
            ? "absent"
            : !existedBefore
              ? "created"
              : before?.sha256 === after.sha256 && before?.bytes === after.bytes
                ? "unchanged"
                : "modified";
        return { ...after, sha256Before: before?.sha256 ?? null, status };
      }),
    );
    const outcome = decideOutcome(run, oomKilled);
    const exitForHeader = run.exitCode ?? (run.signal ? 128 + signalNumber(run.signal) : -1);
    const header = `run_script ${outcome}: ${args.script} (exit ${exitForHeader}, ${(run.durationMs / 1000).toFixed(1)}s)`;

    const details: RunScriptDetails = {
      outcome,
      interpreter: args.interpreter,
      interpreterPath,
      command,
      script: script.rel,
      scriptSha256,
      args: args.args,
      interpreterArgs: args.interpreterArgs,
      cwd: cwd.rel,
      envKeys: Object.keys(args.env).sort(),
      timeoutMs: args.timeoutMs,
      exitCode: run.exitCode,
      signal: run.signal,
      durationMs: run.durationMs,
      startedAt: run.startedAt.toISOString(),
      endedAt: run.endedAt.toISOString(),
      stdoutBytes: tails.stdout.total,
      stderrBytes: tails.stderr.total,
      stdoutTail: tails.stdout.text(),
      stderrTail: tails.stderr.text(),
      inputs: inputHashes,
      outputs: outputHashes,
      timedOut: run.timedOut,
      oomKilled,
      ...(run.spawnError !== undefined ? { spawnError: run.spawnError } : {}),
      ...(run.survivors > 0 ? { survivors: run.survivors } : {}),
    };
    const output = renderRunText(header, details);
    const result = {
      ok: outcome === "succeeded",
      output,
      details: { ...details },
      trace: { interpreterPath, oomKillsBefore: oomBefore, oomKillsAfter: oomAfter },
    };
    return outcome === "succeeded" ? result : { ...result, error: { code: outcome, message: header } };
  },
});

function renderStream(name: string, total: number, tail: string): string {
  if (total === 0) return `${name}: (empty)`;
  const label =
    total > RUN_SCRIPT_TAIL_BYTES
      ? `${name} (last ${RUN_SCRIPT_TAIL_BYTES / 1024} KiB of ${total} bytes)`
      : `${name} (${total} bytes)`;
  return `${label}:\n${tail}${tail.endsWith("\n") ? "" : "\n"}`;
}

/** What a model reads: the header, why it did not run if so, outputs, and the tail of each stream. */
export function renderRunText(header: string, details: RunScriptDetails): string {
  const parts = [header];
  if (details.spawnError) parts.push(`spawn error: ${details.spawnError}`);
  if (details.survivors)
    parts.push(`${details.survivors} descendant process(es) were still running after exit and were killed`);
  if (details.outputs.length > 0)
    parts.push(`outputs: ${details.outputs.map((o) => `${o.path} ${o.status}`).join(", ")}`);
  parts.push(renderStream("stdout", details.stdoutBytes, details.stdoutTail));
  parts.push(renderStream("stderr", details.stderrBytes, details.stderrTail));
  return parts.join("\n");
}
