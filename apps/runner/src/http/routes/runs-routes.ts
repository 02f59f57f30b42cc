import fs from "node:fs";
import type { FastifyInstance } from "fastify";
import { AppError, RunListQuerySchema, RunLogsQuerySchema, type RunDetail, type RunLogPage } from "@berth/protocol";
import type { Database } from "@berth/db";
import { authorize, listScope, type Action } from "../../auth/authorize";
import type { Principal } from "../../auth/tokens";
import { RunLogs, readLog } from "../../runs/run-logs";
import { readLogTimes } from "../../runs/run-log-times";
import { cancelRun, type CancelRunDeps } from "../../runs/cancel-run";
import { runView } from "../../runs/run-view";
import { requirePrincipal } from "../build-server";
import { parse } from "../validate";

/** Runs the principal may list: a developer their own sessions' (docs/api.md, Roles: run list). */
function visibleWhere(principal: Principal) {
  const { ownerId } = listScope(principal, "run", "list");
  return ownerId ? { session: { ownerId } } : {};
}

/** The run if the principal may `action` it (a run belongs to its session's owner); 404 if they may not even read it. */
export async function findVisibleRun(db: Database, id: string, principal: Principal, action: Action<"run"> = "read") {
  const run = await db.run.findUnique({ where: { id }, include: { receipt: { select: { id: true } }, session: { select: { ownerId: true } } } });
  if (!run) throw new AppError({ code: "not_found", message: `Run not found: ${id}` });
  authorize(principal, "run", action, { id: run.id, ownerId: run.session.ownerId });
  return run;
}

export function registerRunRoutes(app: FastifyInstance, deps: { db: Database; dataDir: string; cancel: CancelRunDeps }): void {
  // The IDE's Stop: aborts a running run (docs/api.md); 409 when it is not running.
  app.post<{ Params: { id: string } }>("/api/runs/:id/cancel", async (request) => cancelRun(deps.cancel, request.params.id, requirePrincipal(request), "http"));

  app.get("/api/runs", async (request) => {
    const principal = requirePrincipal(request);
    const query = parse(RunListQuerySchema, request.query, "query");
    const runs = await deps.db.run.findMany({
      where: {
        ...visibleWhere(principal),
        ...(query.sessionId ? { sessionId: query.sessionId } : {}),
        ...(query.status ? { status: query.status } : {}),
        ...(query.outcome ? { outcome: query.outcome } : {}),
        ...(query.before ? { startedAt: { lt: new Date(query.before) } } : {}),
      },
      orderBy: { startedAt: "desc" },
      take: query.limit,
      include: { receipt: { select: { id: true } } },
    });
    return { runs: runs.map(runView) };
  });

  app.get<{ Params: { id: string } }>("/api/runs/:id", async (request): Promise<RunDetail> => {
    const run = await findVisibleRun(deps.db, request.params.id, requirePrincipal(request));
    const toolCalls = await deps.db.toolCall.findMany({ where: { runId: run.id }, orderBy: { createdAt: "asc" } });
    return {
      run: runView(run),
      toolCalls: toolCalls.map((c) => ({
        id: c.id,
        tool: c.tool,
        caller: c.caller,
        via: c.via,
        actionClass: c.actionClass,
        verdict: c.verdict,
        approvalId: c.approvalId,
        ok: c.ok,
        errorCode: c.errorCode,
        durationMs: c.durationMs,
        createdAt: c.createdAt.toISOString(),
      })),
    };
  });

  app.get<{ Params: { id: string } }>("/api/runs/:id/logs", async (request, reply) => {
    const run = await findVisibleRun(deps.db, request.params.id, requirePrincipal(request), "logs");
    const query = parse(RunLogsQuerySchema, request.query, "query");
    if (query.download === "1") {
      // Streamed from disk: a 100 MB log never sits in the runner's memory.
      const file = RunLogs.pathFor(deps.dataDir, run.id, query.stream);
      return reply
        .header("content-type", "text/plain; charset=utf-8")
        .header("content-disposition", `attachment; filename="${run.id}-${query.stream}.log"`)
        .send(fs.existsSync(file) ? fs.createReadStream(file) : "");
    }
    const { content, size } = readLog(deps.dataDir, run.id, query.stream, query.offset, query.limit);
    const nextOffset = Math.min(size, query.offset + content.length);
    const page = { content: content.toString("utf8"), offset: query.offset, nextOffset, size, done: run.status !== "running" && nextOffset >= size } satisfies RunLogPage;
    if (query.timestamps !== "1") return page;
    // When each chunk of the page arrived, from the times index written beside the logs.
    return { ...page, times: readLogTimes(RunLogs.dirFor(deps.dataDir, run.id), query.stream, query.offset, nextOffset) } satisfies RunLogPage;
  });
}
