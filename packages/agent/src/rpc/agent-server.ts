import type { Readable, Writable } from "node:stream";
import {
  BUILTIN_TOOL_TABLE,
  BuiltinTool,
  formatIssues,
  AGENT_PROTOCOL_VERSION,
  AgentMethod,
  type AgentHelloResult,
  type AgentPingResult,
  JsonRpcRequestSchema,
  OUTPUT_FRAME_MAX_DATA_BYTES,
  RpcErrorCode,
  SkillsSyncParamsSchema,
  ToolAbortParamsSchema,
  ToolCallParamsSchema,
  type ToolResult,
  encodeOutputFrameHead,
  isPortMethod,
  isTerminalMethod,
  isTreeMethod,
  toolFailure,
} from "@berth/protocol";
import pkg from "../../package.json" with { type: "json" };
import type { AgentConfig } from "../config";
import { workspaceSummary } from "../context";
import { asWorkspaceUser } from "../processes/launch";
import { ProcessManager } from "../processes/process-manager";
import { TerminalFault, TerminalManager } from "../terminals";
import { PortFault, PortRelay } from "../ports";
import { HashParamsError, firstChanged, hashFiles } from "../run-script/hash-files";
import { callTool } from "../tools/call-tool";
import type { AgentTool, EmitOutput, Notify } from "../tools/tool-context";
import { AGENT_TOOLS } from "../tools/tool-registry";
import { Workspace } from "../workspace/workspace";
import { TreeFault, dispatchTreeMethod, treeWorkspace } from "../worktrees";
import { syncSkills } from "../workspace/sync-skills";
import { LineSplitter } from "./line-splitter";

export const AGENT_VERSION: string = pkg.version;

export interface AgentServerOptions {
  config: AgentConfig;
  input: Readable;
  output: Writable;
  log?: (message: string) => void;
  tools?: ReadonlyMap<string, AgentTool>;
}

type RpcId = string | number | null;
type RpcError = { code: number; message: string; data?: unknown };

class RpcFault extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const fatalDecoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The agent's JSON-RPC 2.0 loop: one request per line on `input`, one response or notification per
 * line on `output` and, between the lines, live output as binary frames (agent-output-frame.ts in
 * @berth/protocol); nothing else there. Requests run concurrently; tools that change files run one
 * at a time. A bad line earns a JSON-RPC error and the loop goes on.
 */
export function startAgentServer(options: AgentServerOptions): {
  closed: Promise<void>;
  shutdown: () => Promise<void>;
} {
  const { config, input, output } = options;
  const log = options.log ?? ((message: string) => process.stderr.write(`berth-agent: ${message}\n`));
  const tools = options.tools ?? AGENT_TOOLS;
  const workspace = new Workspace(config.workspace, { readOnlyRoots: [config.skillsRoot] });
  const send = (message: Record<string, unknown>) => {
    if (!output.writableEnded) output.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  };
  const notify: Notify = (method, params) => send({ method, params });
  const emitOutput: EmitOutput = (header, data, written) => {
    let handedOn = false;
    for (let at = 0; at < data.length && !output.writableEnded; at += OUTPUT_FRAME_MAX_DATA_BYTES) {
      const piece = data.subarray(at, at + OUTPUT_FRAME_MAX_DATA_BYTES);
      const last = at + OUTPUT_FRAME_MAX_DATA_BYTES >= data.length;
      // Head and data leave in one write (writev), so a frame costs one syscall like a line did.
      output.cork();
      output.write(encodeOutputFrameHead({ ...header, offset: header.offset + at }, piece.length));
      // Writes complete in order: the last piece's callback means every piece has left (or failed to: the error is
      // the stream's, handled where it is made).
      if (last && written) {
        output.write(piece, () => written());
        handedOn = true;
      } else output.write(piece);
      output.uncork();
    }
    if (!handedOn) written?.();
  };
  const processes = new ProcessManager(config.stateDir, notify, emitOutput, (file, args) => asWorkspaceUser(config, file, args));
  const terminals = new TerminalManager(config, log);
  const ports = new PortRelay();
  const activeCalls = new Map<string, AbortController>();
  let writeQueue: Promise<unknown> = Promise.resolve();
  const inFlight = new Set<Promise<void>>();

  const respond = (id: RpcId, result: unknown) => send({ id, result });
  const respondError = (id: RpcId, error: RpcError) => send({ id, error });

  async function toolCall(params: unknown, lineWasInvalidUtf8: boolean): Promise<ToolResult> {
    const parsed = ToolCallParamsSchema.safeParse(params);
    if (!parsed.success)
      throw new RpcFault(
        RpcErrorCode.InvalidParams,
        `Invalid tool.call params: ${formatIssues(parsed.error, "params")}`,
      );
    const { tool: name, args, callId, env, expect, worktree } = parsed.data;
    const tool = tools.get(name);
    if (!tool) return toolFailure("unknown_tool", `Unknown tool: ${name}`);
    // A compete candidate's task or check: its paths resolve in that candidate's tree.
    const callWorkspace = worktree === undefined ? workspace : await treeWorkspace(config, worktree).catch((error: Error) => error);
    if (callWorkspace instanceof Error) return toolFailure("not_found", callWorkspace.message);
    if (activeCalls.has(callId)) throw new RpcFault(RpcErrorCode.InvalidParams, `callId is already running: ${callId}`);
    const controller = new AbortController();
    activeCalls.set(callId, controller);
    const ctx = { workspace: callWorkspace, config, callId, sessionEnv: env ?? {}, signal: controller.signal, notify, output: emitOutput, processes, ...(expect ? { expect } : {}) };
    try {
      const run = async () => {
        // An approved call runs only on the files the operator approved; run_script checks its own (it runs
        // the very bytes it checked, and reports the refusal as its outcome).
        const changed = expect && name !== BuiltinTool.run_script ? await firstChanged(workspace, name, expect) : undefined;
        return changed ? toolFailure("changed_since_approval", changed) : callTool(tool, args, ctx, { lineWasInvalidUtf8 });
      };
      // Reads see every write sent before them (program order), and still run in parallel; the tool
      // table's sequential tools (file edits) run one at a time.
      if (BUILTIN_TOOL_TABLE[tool.name].concurrency !== "sequential") {
        await writeQueue;
        return await run();
      }
      const result = writeQueue.then(run, run);
      writeQueue = result.catch(() => undefined);
      return await result;
    } finally {
      activeCalls.delete(callId);
    }
  }

  async function dispatch(method: string, params: unknown, lineWasInvalidUtf8: boolean): Promise<unknown> {
    switch (method) {
      case AgentMethod.Hello:
        return {
          agentVersion: AGENT_VERSION,
          protocolVersion: AGENT_PROTOCOL_VERSION,
          pid: process.pid,
          uid: process.getuid?.() ?? -1,
          node: process.version,
          workspace: config.workspace,
        } satisfies AgentHelloResult;
      case AgentMethod.Ping:
        return { now: Date.now(), rssBytes: process.memoryUsage().rss, runningProcesses: processes.runningCount() + terminals.openCount() } satisfies AgentPingResult;
      case AgentMethod.ToolCall:
        return toolCall(params, lineWasInvalidUtf8);
      case AgentMethod.FilesHash:
        try {
          return await hashFiles(workspace, params);
        } catch (error) {
          throw error instanceof HashParamsError ? new RpcFault(RpcErrorCode.InvalidParams, error.message) : error;
        }
      case AgentMethod.WorkspaceSummary:
        return workspaceSummary(workspace, config);
      case AgentMethod.SkillsSync: {
        const parsed = SkillsSyncParamsSchema.safeParse(params);
        if (!parsed.success)
          throw new RpcFault(RpcErrorCode.InvalidParams, `Invalid skills.sync params: ${formatIssues(parsed.error, "params")}`);
        // In order with file edits, so a read sent after it sees the skills it wrote.
        const synced = writeQueue.then(() => syncSkills(config, parsed.data.skills));
        writeQueue = synced.catch(() => undefined);
        return await synced;
      }
      case AgentMethod.ToolAbort: {
        const parsed = ToolAbortParamsSchema.safeParse(params);
        if (!parsed.success)
          throw new RpcFault(RpcErrorCode.InvalidParams, "Invalid tool.abort params: callId must be a string");
        const controller = activeCalls.get(parsed.data.callId);
        controller?.abort();
        return { aborted: controller !== undefined };
      }
      default:
        if (isTerminalMethod(method)) {
          try {
            return await terminals.dispatch(method, params);
          } catch (error) {
            throw error instanceof TerminalFault ? new RpcFault(error.code, error.message) : error;
          }
        }
        if (isTreeMethod(method)) {
          try {
            return await dispatchTreeMethod(method, params, { workspace, config });
          } catch (error) {
            throw error instanceof TreeFault ? new RpcFault(error.code, error.message) : error;
          }
        }
        if (isPortMethod(method)) {
          try {
            return await ports.dispatch(method, params);
          } catch (error) {
            throw error instanceof PortFault ? new RpcFault(error.code, error.message) : error;
          }
        }
        throw new RpcFault(RpcErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
  }

  function handleLine(bytes: Buffer): void {
    let text: string;
    let lineWasInvalidUtf8 = false;
    try {
      text = fatalDecoder.decode(bytes);
    } catch {
      text = bytes.toString("utf8");
      lineWasInvalidUtf8 = true;
    }
    if (text.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      respondError(null, { code: RpcErrorCode.ParseError, message: "Parse error: the line is not valid JSON" });
      return;
    }
    const request = JsonRpcRequestSchema.safeParse(message);
    if (!request.success) {
      const candidate = (typeof message === "object" && message !== null ? message : {}) as Record<string, unknown>;
      // A notification from the runner (no id) gets no reply; tool.abort may come that way.
      if (candidate.jsonrpc === "2.0" && typeof candidate.method === "string" && !("id" in candidate)) {
        dispatch(candidate.method, candidate.params, lineWasInvalidUtf8).catch(() => undefined);
        return;
      }
      const id =
        typeof candidate.id === "string" || (typeof candidate.id === "number" && Number.isInteger(candidate.id))
          ? candidate.id
          : null;
      respondError(id, {
        code: RpcErrorCode.InvalidRequest,
        message: 'Invalid request: expected {jsonrpc: "2.0", id, method, params?}',
      });
      return;
    }
    const { id, method, params } = request.data;
    const pending = dispatch(method, params, lineWasInvalidUtf8).then(
      (result) => respond(id, result),
      (error: unknown) => {
        if (error instanceof RpcFault) respondError(id, { code: error.code, message: error.message });
        else {
          log(
            `internal error in ${method}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
          );
          respondError(id, {
            code: RpcErrorCode.InternalError,
            message: `Internal error: ${error instanceof Error ? error.message : String(error)}`,
          });
        }
      },
    );
    inFlight.add(pending);
    void pending.finally(() => inFlight.delete(pending));
  }

  const splitter = new LineSplitter(handleLine, () =>
    respondError(null, {
      code: RpcErrorCode.InvalidRequest,
      message: "Invalid request: line longer than the limit was dropped",
    }),
  );
  const closed = new Promise<void>((resolve) => {
    input.on("data", (chunk: Buffer) => splitter.push(chunk));
    input.on("end", () => {
      splitter.end();
      // The runner closed our stdin: answer what was already asked (it may still read stdout), then
      // stop the session's background processes and finish.
      void Promise.allSettled([...inFlight])
        .then(() => (terminals.closeAll(), ports.closeAll(), processes.stopAll()))
        .finally(resolve);
    });
  });
  // A signal from the container runtime: end the session's process groups before going.
  return { closed, shutdown: () => (terminals.closeAll(), processes.stopAll()) };
}
