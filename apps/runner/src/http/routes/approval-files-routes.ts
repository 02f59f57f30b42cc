import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { APPROVAL_FILE_MAX_CHARS, AppError, BuiltinTool, ReadFileDetailsSchema, type ApprovalFile, type ApprovalFiles } from "@berth/protocol";
import type { SandboxDriver } from "@berth/sandbox";
import type { ApprovalService } from "@berth/tools";
import { authorize } from "../../auth/authorize";
import type { SessionService } from "../../sessions/session-service";
import { requirePrincipal } from "../build-server";

/** Tools whose approval shows a diff: the files they change are bound by their text's `file` lines. */
const DIFFED_TOOLS = new Set<string>([BuiltinTool.write_file, BuiltinTool.edit, BuiltinTool.apply_patch]);
const MAX_FILES = 16;
const FILE_LINE = /^file (.+) (?:sha256=([0-9a-f]{64}) bytes=\d+|(absent))$/;

/** The `file <path> sha256=<hex> bytes=<n>` / `file <path> absent` lines of an approval text (bindCallText). */
export function boundFilesOfText(text: string): { path: string; sha256: string | null }[] {
  const files: { path: string; sha256: string | null }[] = [];
  for (const line of text.split("\n")) {
    const match = FILE_LINE.exec(line);
    if (match) files.push({ path: match[1]!, sha256: match[3] ? null : match[2]! });
  }
  return files;
}

/**
 * GET /api/approvals/:id/files — the files a parked write_file, edit or apply_patch would change, as they are
 * in the session now, each with the sha256 its approval binds and the one it has now: the approval card
 * diffs the call against them. The diff shown is what would run only while the two hashes agree (execution
 * refuses a changed file), so the card says when they do not. Read through the agent like the call's own
 * hashing was; a read-only look, not a tool call of the session.
 */
export function registerApprovalFileRoutes(app: FastifyInstance, deps: { approvals: ApprovalService; sessions: SessionService; driver: SandboxDriver }): void {
  app.get<{ Params: { id: string } }>("/api/approvals/:id/files", async (request): Promise<ApprovalFiles> => {
    const principal = requirePrincipal(request);
    const approval = await deps.approvals.get(request.params.id);
    if (!approval) throw new AppError({ code: "not_found", message: `Approval not found: ${request.params.id}` });
    await deps.sessions.get(approval.sessionId, principal, (target) => authorize(principal, "approval", "files", { id: approval.id, ownerId: target.ownerId }));
    if (!DIFFED_TOOLS.has(approval.tool)) return { files: [] };
    const bound = boundFilesOfText(approval.text).slice(0, MAX_FILES);
    const files: ApprovalFile[] = [];
    for (const file of bound) files.push(await current(deps.driver, approval.sessionId, file));
    return { files };
  });
}

async function current(driver: SandboxDriver, sessionId: string, file: { path: string; sha256: string | null }): Promise<ApprovalFile> {
  const base = { path: file.path, bound: file.sha256, truncated: false };
  try {
    const result = await driver.call(sessionId, {
      tool: BuiltinTool.read_file,
      args: { path: file.path, maxChars: APPROVAL_FILE_MAX_CHARS },
      callId: `approval_files_${randomUUID()}`,
      env: {},
    });
    if (!result.ok) {
      if (result.error?.code === "not_found") return { ...base, current: null };
      return { ...base, current: null, note: result.error?.message ?? "could not be read" };
    }
    const details = ReadFileDetailsSchema.safeParse(result.details);
    if (!details.success) return { ...base, current: null, note: "the agent's answer was not a file" };
    return { ...base, current: details.data.sha256 ?? null, content: details.data.content, truncated: details.data.truncated };
  } catch (error) {
    return { ...base, current: null, note: `not readable now: ${(error as Error).message}` };
  }
}
