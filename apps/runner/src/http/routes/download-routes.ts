import { randomUUID } from "node:crypto";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { AppError, DownloadQuerySchema, WORKSPACE_ROOT } from "@berth/protocol";
import type { SandboxDriver } from "@berth/sandbox";
import { authorize } from "../../auth/authorize";
import type { SessionService } from "../../sessions/session-service";
import { shellQuote } from "../../mcp/container-stdio-launcher";
import { requirePrincipal } from "../build-server";
import { parse } from "../validate";
import { commandOutputStream } from "../../downloads/command-output-stream";
import { TarToZip } from "../../downloads/tar-to-zip";
import { ZIP_MAX_BYTES, ZIP_MAX_ENTRIES } from "../../downloads/zip-writer";

const WORKSPACE = WORKSPACE_ROOT;

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

/**
 * GET /api/sessions/:id/download?path=<dir>&format=tar.gz|zip — the folder as a gzipped tar or a zip,
 * streamed: `tar` runs in the session's container (commandOutputStream, which lets it write only as fast as
 * the browser reads), and for a zip the tar stream is turned into a stored zip on the way
 * (TarToZip). A zip has no zip64 here, so a folder past 4 GiB or 65535 entries is refused before anything is sent.
 */
export function registerDownloadRoutes(app: FastifyInstance, deps: { sessions: SessionService; driver: SandboxDriver }): void {
  app.get<{ Params: { id: string } }>("/api/sessions/:id/download", async (request, reply) => {
    const principal = requirePrincipal(request);
    const query = parse(DownloadQuerySchema, request.query, "query");
    const relative = workspaceRelative(query.path);
    const session = await deps.sessions.get(request.params.id, principal, (target) => authorize(principal, "session", "download", target));

    // A symlink may point anywhere in the container: the folder's real path must be the workspace's too.
    // For a zip the folder's bytes and entries are counted as well (a link is not followed, as tar does not).
    const quoted = shellQuote(relative);
    const count = query.format === "zip" ? ` && find ${quoted} -printf '%s\\n' | awk '{ s += $1; n++ } END { print "size", s + 0, n + 0 }'` : "";
    const check = await deps.driver.call(session.id, {
      tool: "bash",
      args: {
        action: "exec",
        command: `cd ${WORKSPACE} && real=$(realpath -e -- ${quoted}) && test -d "$real" && case "$real" in ${WORKSPACE}|${WORKSPACE}/*) echo ok;; *) echo outside;; esac${count}`,
      },
      callId: `download_${randomUUID()}`,
      env: {},
    });
    const [verdict = "", sizeLine = ""] = String((check.details as { stdout?: unknown } | undefined)?.stdout ?? "").trim().split("\n");
    if (verdict === "outside") {
      throw new AppError({ code: "bad_request", message: `path: ${JSON.stringify(query.path)} resolves outside ${WORKSPACE}` });
    }
    if (verdict !== "ok") throw new AppError({ code: "not_found", message: `path: no folder ${JSON.stringify(query.path)} in ${WORKSPACE}` });
    if (query.format === "zip") refuseOverZipLimits(query.path, sizeLine);

    // --hard-dereference: a zip cannot say "same as that file", so hard links come as copies in both formats.
    const flags = query.format === "zip" ? "--format=gnu --hard-dereference -cf" : "-czf";
    const tar = commandOutputStream(deps.driver, session.id, `tar ${flags} - -- ${quoted}`, "tar");
    const body = query.format === "zip" ? tar.stream.pipe(new TarToZip()) : tar.stream;
    if (body !== tar.stream) {
      // A failure on either side ends both: the connection is reset, the cut zip is never completed.
      tar.stream.on("error", (error) => body.destroy(error));
      body.on("error", () => tar.stream.destroy());
    }
    // A browser that hangs up stops tar rather than let it run to the end for no one.
    reply.raw.on("close", () => {
      if (!body.readableEnded) body.destroy();
      if (!tar.stream.readableEnded) tar.stream.destroy();
    });
    const name = (relative === "." ? "workspace" : path.posix.basename(relative)).replace(/[^\w.-]/g, "_");
    return reply
      .header("content-type", query.format === "zip" ? "application/zip" : "application/gzip")
      .header("content-disposition", `attachment; filename="${name}.${query.format}"`)
      .header("cache-control", "no-store")
      .send(body);
  });
}

/** `size <bytes> <entries>` from the check against what a zip without zip64 holds (its headers counted too). */
function refuseOverZipLimits(folder: string, sizeLine: string): void {
  const [, bytes = NaN, entries = NaN] = sizeLine.split(" ").map(Number);
  if (!Number.isFinite(bytes) || !Number.isFinite(entries)) throw new AppError({ code: "internal", message: `could not measure ${JSON.stringify(folder)} for a zip: ${JSON.stringify(sizeLine)}` });
  // Each entry adds a local header, a data descriptor and a central record, name included (at most 4096 chars).
  const overhead = entries * (30 + 16 + 46 + 2 * 256);
  if (bytes + overhead > ZIP_MAX_BYTES || entries > ZIP_MAX_ENTRIES) {
    throw new AppError({
      code: "payload_too_large",
      message: `path: ${JSON.stringify(folder)} holds ${bytes} bytes in ${entries} entries; a .zip download holds at most ${ZIP_MAX_BYTES} bytes and ${ZIP_MAX_ENTRIES} entries (no zip64): download it as .tar.gz`,
    });
  }
}
