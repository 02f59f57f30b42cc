import { randomUUID } from "node:crypto";
import path from "node:path";
import { PassThrough } from "node:stream";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { AppError } from "@berth/protocol";
import type { SandboxDriver, SessionOutputEvent, SessionProcessStatusEvent } from "@berth/sandbox";
import { authorize } from "../../auth/authorize";
import type { SessionService } from "../../sessions/session-service";
import { shellQuote } from "../../mcp/container-stdio-launcher";
import { requirePrincipal } from "../build-server";
import { parse } from "../validate";

const WORKSPACE = "/workspace";
const MAX_PATH_CHARS = 4096;
/**
 * Lines the command adds to tar's own messages on stderr: tar's exit code, and how many bytes stdout carried
 * (the process's exit may be reported before its last output arrives, so the count says when it is whole).
 */
const BYTES_MARK = "berth-bytes:";
const EXIT_MARK = "berth-tar-exit:";
const STDERR_TAIL_CHARS = 4096;

const DownloadQuerySchema = z.object({
  path: z.string().min(1, "must name a folder").max(MAX_PATH_CHARS, `must be at most ${MAX_PATH_CHARS} characters`),
  format: z.literal("tar.gz", { error: 'must be "tar.gz"' }).default("tar.gz"),
});

/**
 * A folder's path relative to /workspace ("." for the workspace itself), or an AppError naming the bad
 * value: absolute paths must be under /workspace, and no `..` may climb out.
 */
export function workspaceRelative(input: string): string {
  const absolute = path.posix.resolve(WORKSPACE, input);
  if (absolute !== WORKSPACE && !absolute.startsWith(`${WORKSPACE}/`)) {
    throw new AppError({ code: "bad_request", message: `path: ${JSON.stringify(input)} is outside ${WORKSPACE}` });
  }
  return absolute === WORKSPACE ? "." : `./${absolute.slice(WORKSPACE.length + 1)}`;
}

/** The number after the last `mark` on a whole line of `text`, or null until that line is complete. */
function markValue(text: string, mark: string): number | null {
  const at = text.lastIndexOf(mark);
  const end = at === -1 ? -1 : text.indexOf("\n", at);
  return end === -1 ? null : Number(text.slice(at + mark.length, end));
}

/**
 * GET /api/sessions/:id/download?path=<dir>&format=tar.gz — the folder as a gzipped tar, streamed: `tar -czf -`
 * runs in the session's container as a background process of the agent (the bash tool's machinery, started on
 * the driver directly, so it is not a run), and each output chunk goes to the response as it arrives.
 */
export function registerDownloadRoutes(app: FastifyInstance, deps: { sessions: SessionService; driver: SandboxDriver }): void {
  app.get<{ Params: { id: string } }>("/api/sessions/:id/download", async (request, reply) => {
    const principal = requirePrincipal(request);
    const query = parse(DownloadQuerySchema, request.query, "query");
    const relative = workspaceRelative(query.path);
    const session = await deps.sessions.get(request.params.id, principal, (target) => authorize(principal, "session", "download", target));
    const call = (args: Record<string, unknown>) =>
      deps.driver.call(session.id, { tool: "bash", args, callId: `download_${randomUUID()}`, env: {} });

    // A symlink may point anywhere in the container: the folder's real path must be the workspace's too.
    const quoted = shellQuote(relative);
    const check = await call({
      action: "exec",
      command: `cd ${WORKSPACE} && real=$(realpath -e -- ${quoted}) && test -d "$real" && case "$real" in ${WORKSPACE}|${WORKSPACE}/*) echo ok;; *) echo outside;; esac`,
    });
    const verdict = String((check.details as { stdout?: unknown } | undefined)?.stdout ?? "").trim();
    if (verdict === "outside") {
      throw new AppError({ code: "bad_request", message: `path: ${JSON.stringify(query.path)} resolves outside ${WORKSPACE}` });
    }
    if (verdict !== "ok") throw new AppError({ code: "not_found", message: `path: no folder ${JSON.stringify(query.path)} in ${WORKSPACE}` });

    const body = new PassThrough();
    // Unknown until the start call returns; output that comes first waits in `early`.
    let processId: string | undefined = undefined;
    const early: SessionOutputEvent[] = [];
    let received = 0;
    let expected: number | null = null;
    let tarExit: number | null = null;
    let stderr = "";
    let done = false;

    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      deps.driver.off("output", onOutput);
      deps.driver.off("process.status", onStatus);
      // A cut archive must not look whole: the connection is reset instead of ended.
      if (error) body.destroy(error);
      else body.end();
    };
    const onOutput = (event: SessionOutputEvent) => {
      if (event.sessionId !== session.id || event.processId === undefined) return;
      if (processId === undefined) {
        early.push(event);
        return;
      }
      if (event.processId !== processId) return;
      const chunk = Buffer.from(event.data, "base64");
      if (event.stream === "stderr") {
        stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
        expected ??= markValue(stderr, BYTES_MARK);
        tarExit ??= markValue(stderr, EXIT_MARK);
        if (tarExit !== null && tarExit !== 0) {
          finish(new Error(`tar exited with code ${tarExit}: ${stderr.replace(`${EXIT_MARK}${tarExit}`, "").trim().slice(-500)}`));
          return;
        }
      } else {
        received += chunk.length;
        body.write(chunk);
      }
      if (tarExit === 0 && expected !== null && received >= expected) finish();
    };
    const onStatus = (event: SessionProcessStatusEvent) => {
      if (event.sessionId !== session.id || event.processId !== processId || event.status === "RUNNING") return;
      // A stop or a kill ends it without the marks; an ordinary exit is finished by them (onOutput).
      if (event.exitCode !== 0) finish(new Error(`the download's process ended with code ${event.exitCode}: ${stderr.trim().slice(-500)}`));
    };

    deps.driver.on("output", onOutput);
    deps.driver.on("process.status", onStatus);
    // tee passes the archive to the agent's stdout and counts it; tar's exit code and the count come on stderr.
    const command =
      `cd ${WORKSPACE} && { tar -czf - -- ${quoted}; echo "${EXIT_MARK}$?" >&2; } | ` +
      `tee >(wc -c | sed 's/^/${BYTES_MARK}/' >&2)`;
    const started = await call({ action: "start", command });
    const id = started.ok ? (started.details as { processId?: unknown } | undefined)?.processId : undefined;
    if (typeof id !== "string") {
      finish();
      throw new AppError({ code: "internal", message: `could not start tar in session ${session.id}: ${started.error?.message ?? "no processId"}` });
    }
    processId = id;
    for (const event of early.splice(0)) onOutput(event);

    // A browser that hangs up stops tar rather than let it run to the end for no one.
    reply.raw.on("close", () => {
      if (!done) {
        finish();
        void call({ action: "stop", processId: id }).catch(() => undefined);
      }
    });
    const name = relative === "." ? "workspace" : path.posix.basename(relative);
    return reply
      .header("content-type", "application/gzip")
      .header("content-disposition", `attachment; filename="${name.replace(/[^\w.-]/g, "_")}.tar.gz"`)
      .header("cache-control", "no-store")
      .send(body);
  });
}
