import { createHash } from "node:crypto";
import { parseUserToolName, projectNames, sanitizeToolName } from "@berth/mcp";
import type { SandboxDriver } from "@berth/sandbox";
import { AgentMethod, BuiltinTool, FilesHashResultSchema, type FilesHashResult } from "@berth/protocol";
import {
  FUNCTION_TOOLS_FILE,
  FUNCTION_TOOLS_FILE_MAX_BYTES,
  functionToolSpec,
  parseFunctionToolsFile,
  type FunctionToolsReport,
  type FunctionToolsScan,
  type ResolvedTool,
  type ToolProvider,
  type ToolScope,
} from "@berth/tools";
import { newId } from "../auth/tokens";

interface Loaded {
  /** The file's sha256 as loaded, or why it has none ("(absent)", "(not-a-file)", "(too-large)"). */
  key: string;
  tools: ResolvedTool[];
  report: FunctionToolsReport;
}

const EMPTY: FunctionToolsScan = { tools: [], problems: [] };
const ABSENT = "(absent)";
/** Never a file's key: a file that could not be read is read again on the next call. */
const UNREAD = "(unread)";
const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Each session's function tools, as declared in berth.tools.json at its workspace root. The file is read when
 * a call may reach them (the router's layer between user MCP and session MCP), and read again only when its
 * content hash changed: one agent round trip when it did not, whoever edited it (a tool, the IDE, a terminal).
 */
export class FunctionToolCatalog {
  private readonly loaded = new Map<string, Loaded>();
  /** Scans of a session run one after another, so a caller always sees a look taken after it asked. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: {
      driver: Pick<SandboxDriver, "request" | "call">;
      /** Names a function tool must not take (the built-ins): a clash gets a short hash suffix instead. */
      reserved: () => Iterable<string>;
    },
  ) {}

  /** The router's layer for local function tools: the session's tools, less what a request's `functions` leaves out. */
  readonly provider: ToolProvider = {
    name: "function",
    resolve: (name, scope) => this.visible(scope).find((tool) => tool.spec.name === name),
    list: (scope) => this.visible(scope),
  };

  /**
   * Brings the session's tools up to date with its file. A file that cannot be read (it resolves outside the
   * workspace, the sandbox does not answer) gives no tools and says why; the next call looks again.
   */
  refresh(sessionId: string): Promise<void> {
    const next = (this.queues.get(sessionId) ?? Promise.resolve())
      .then(() => this.scan(sessionId))
      .catch((error: unknown) => {
        this.loaded.set(sessionId, { key: UNREAD, ...this.project(problem(`could not be read: ${error instanceof Error ? error.message : String(error)}`)) });
      });
    this.queues.set(sessionId, next);
    void next.then(() => {
      if (this.queues.get(sessionId) === next) this.queues.delete(sessionId);
    });
    return next;
  }

  /** The exposed names of the session's tools (an MCP tool must not take one). */
  names(sessionId: string): string[] {
    return (this.loaded.get(sessionId)?.tools ?? []).map((tool) => tool.spec.name);
  }

  /** Why the session's file loaded no tool, as last read (what `gateway find` shows beside its list). */
  problems(sessionId: string): string[] {
    return this.loaded.get(sessionId)?.report.problems ?? [];
  }

  /** What was found in the file, after a refresh; undefined when the workspace has none. */
  async report(sessionId: string): Promise<FunctionToolsReport | undefined> {
    await this.refresh(sessionId);
    const loaded = this.loaded.get(sessionId);
    return loaded && loaded.key !== ABSENT ? loaded.report : undefined;
  }

  forget(sessionId: string): void {
    this.loaded.delete(sessionId);
  }

  private visible(scope: ToolScope): ResolvedTool[] {
    const tools = this.loaded.get(scope.sessionId)?.tools ?? [];
    return scope.functions ? tools.filter((tool) => scope.functions?.includes(tool.spec.name)) : tools;
  }

  private async scan(sessionId: string): Promise<void> {
    const hashed = await this.deps.driver.request(sessionId, AgentMethod.FilesHash, { paths: [FUNCTION_TOOLS_FILE], preview: FUNCTION_TOOLS_FILE }, FilesHashResultSchema);
    const file = hashed.files[0];
    const key = file?.sha256 ?? (file?.note && file.note !== "absent" ? `(${file.note})` : ABSENT);
    if (this.loaded.get(sessionId)?.key === key) return;
    let scan = EMPTY;
    if (file?.note === "not-a-file") scan = problem("not a regular file");
    else if (file?.sha256 && (file.bytes ?? 0) > FUNCTION_TOOLS_FILE_MAX_BYTES) scan = problem(`must be at most ${FUNCTION_TOOLS_FILE_MAX_BYTES} bytes (got ${file.bytes} bytes)`);
    else if (file?.note === "too-large") scan = problem(`must be at most ${FUNCTION_TOOLS_FILE_MAX_BYTES} bytes`);
    else if (file?.sha256) {
      const text = await this.textOf(sessionId, file.sha256, hashed.preview);
      scan = typeof text === "string" ? parseFunctionToolsFile(text) : problem(text.problem);
    }
    this.loaded.set(sessionId, { key, ...this.project(scan) });
  }

  /** The file's text: the preview the hash came with when it is the whole file, else a read_file of it. */
  private async textOf(sessionId: string, sha256: string, preview: FilesHashResult["preview"]): Promise<string | { problem: string }> {
    if (preview && !preview.truncated && sha256Hex(preview.text) === sha256) return preview.text;
    const result = await this.deps.driver.call(sessionId, {
      tool: BuiltinTool.read_file,
      args: { path: FUNCTION_TOOLS_FILE, maxChars: FUNCTION_TOOLS_FILE_MAX_BYTES },
      callId: newId("call"),
    });
    const content = result.details?.content;
    return result.ok && typeof content === "string" ? content : { problem: result.error?.message ?? result.output };
  }

  /** Exposed names as for MCP tools: sanitised; a built-in's name, or one shaped like a user's MCP tool, gets a hash suffix. */
  private project(scan: FunctionToolsScan): Omit<Loaded, "key"> {
    const reserved = new Set(this.deps.reserved());
    const seen = new Map<string, number>();
    const claims = scan.tools.map((declaration) => {
      const name = sanitizeToolName(declaration.name);
      // `user_{id}_tool_…` is a user's MCP namespace (earlier in the router): a function tool never passes for one.
      if (parseUserToolName(name)) reserved.add(name);
      const occurrence = seen.get(declaration.name) ?? 0;
      seen.set(declaration.name, occurrence + 1);
      return { id: `${FUNCTION_TOOLS_FILE}#${declaration.name}#${occurrence}`, name };
    });
    const projected = projectNames(claims, { reserved });
    const tools: ResolvedTool[] = [];
    const report: FunctionToolsReport = { file: FUNCTION_TOOLS_FILE, tools: [], problems: scan.problems, notes: [] };
    scan.tools.forEach((declaration, index) => {
      const name = projected[index]?.name ?? claims[index]?.name ?? declaration.name;
      tools.push({ spec: functionToolSpec(declaration, name), kind: "function", origin: "function" });
      report.tools.push({ name, declaredName: declaration.name, actionClass: declaration.actionClass, interpreter: declaration.interpreter, script: declaration.script });
      if (name === declaration.name) return;
      const why = projected[index]?.suffixed ? `${claims[index]?.name} is taken` : "names are [a-zA-Z0-9_-], at most 64 characters, starting with a letter";
      report.notes.push(`${FUNCTION_TOOLS_FILE}: tools[${index}] (${declaration.name}) is exposed as ${name} (${why})`);
    });
    return { tools, report };
  }
}

function problem(message: string): FunctionToolsScan {
  return { tools: [], problems: [`${FUNCTION_TOOLS_FILE}: ${message}`] };
}
