import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { OutputChunkHeader, ToolResult } from "@berth/protocol";
import { loadAgentConfig } from "../config";
import { ProcessManager } from "../processes/process-manager";
import { callTool } from "../tools/call-tool";
import type { EmitOutput, ToolContext } from "../tools/tool-context";
import { AGENT_TOOLS } from "../tools/tool-registry";
import { Workspace } from "../workspace/workspace";

export interface Notification {
  method: string;
  params: Record<string, unknown>;
}

/** A temporary workspace plus a way to call any agent tool in it, as the RPC loop would. */
export interface ToolHarness {
  root: string;
  stateDir: string;
  notifications: Notification[];
  processes: ProcessManager;
  call(
    tool: string,
    args: unknown,
    options?: { callId?: string; env?: Record<string, string>; signal?: AbortSignal; lineWasInvalidUtf8?: boolean; expect?: Record<string, string | null> },
  ): Promise<ToolResult>;
  cleanup(): Promise<void>;
}

export async function createToolHarness(extraEnv: Record<string, string> = {}): Promise<ToolHarness> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "berth-agent-test-")));
  const root = path.join(base, "workspace");
  const stateDir = path.join(base, "state");
  await mkdir(root);
  const config = loadAgentConfig({
    PATH: process.env.PATH,
    BERTH_WORKSPACE: root,
    BERTH_AGENT_STATE: stateDir,
    ...extraEnv,
  });
  const notifications: Notification[] = [];
  const notify = (method: string, params: Record<string, unknown>) => notifications.push({ method, params });
  // Live output is recorded beside the notifications, as `output` with a copy of its bytes in `data` (a chunk may be a
  // lent buffer, read into again once `written` is called).
  const output: EmitOutput = (header: OutputChunkHeader, data: Buffer, written?: () => void) => {
    notifications.push({ method: "output", params: { ...header, data: Buffer.from(data) } });
    written?.();
  };
  const processes = new ProcessManager(stateDir, notify, output);
  const workspace = new Workspace(root, { readOnlyRoots: [config.skillsRoot] });
  let n = 0;
  return {
    root,
    stateDir,
    notifications,
    processes,
    async call(tool, args, options = {}) {
      const spec = AGENT_TOOLS.get(tool);
      if (!spec) throw new Error(`no tool ${tool}`);
      const ctx: ToolContext = {
        workspace,
        config,
        callId: options.callId ?? `call-${++n}`,
        sessionEnv: options.env ?? {},
        signal: options.signal ?? new AbortController().signal,
        notify,
        output,
        processes,
        ...(options.expect ? { expect: options.expect } : {}),
      };
      return callTool(spec, args, ctx, { lineWasInvalidUtf8: options.lineWasInvalidUtf8 ?? false });
    },
    async cleanup() {
      await processes.stopAll();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** The structured details of a successful result (fails the test with the output otherwise). */
export function detailsOf<T = Record<string, unknown>>(result: ToolResult): T {
  if (!result.ok) throw new Error(`expected ok result, got: ${result.output}`);
  return result.details as T;
}

/** The error message of a failed result. */
export function errorOf(result: ToolResult): string {
  if (result.ok) throw new Error(`expected failure, got: ${result.output}`);
  return result.error?.message ?? "";
}
