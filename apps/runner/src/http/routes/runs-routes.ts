import type { FastifyInstance } from "fastify";
import { AppError, RunListQuerySchema, RunLogTimesQuerySchema, RunLogsQuerySchema, type RunDetail, type RunLogPage, type RunLogTimesResult } from "@berth/protocol";
import type { Repositories, RunRepository } from "@berth/db";
import { authorize, listScope, type Action } from "../../auth/authorize";
import type { Principal } from "../../auth/tokens";
import { LogReader, RunLogs, logSize, readLog } from "../../runs/run-logs";
import { readLogTimes } from "../../runs/run-log-times";
import { cancelRun, type CancelRunDeps } from "../../runs/cancel-run";
import { requirePrincipal } from "../build-server";
import { logRangeStream, parseByteRange } from "./log-range-stream";
import { parse } from "../validate";
import type { RunLogStore } from "../../cluster/run-log-store";

/** The run if the principal may `action` it (a run belongs to its session's owner); 404 if they may not even read it. */
export async function findVisibleRun(runs: RunRepository, id: string, principal: Principal, action: Action<"run"> = "read") {
  const found = await runs.getWithOwner(id);
  if (!found) throw new AppError({ code: "not_found", message: `Run not found: ${id}` });
  authorize(principal, "run", action, { id: found.run.id, ownerId: found.ownerId });
  return found.run;
}

export function registerRunRoutes(
  app: FastifyInstance,
  deps: {
    repos: Pick<Repositories, "runs" | "toolCalls">;
    dataDir: string;
    cancel: CancelRunDeps;
    /** Makes this runner's files of a run hold its log before they are read (another runner may have written it). */
    logs: Pick<RunLogStore, "ready">;
  },
): void {
  // The IDE's Stop: aborts a running run (docs/api.md); 409 when it is not running.
  app.post<{ Params: { id: string } }>("/api/runs/:id/cancel", async (request) => cancelRun(deps.cancel, request.params.id, requirePrincipal(request), "http"));

  app.get("/api/runs", async (request) => {
    const principal = requirePrincipal(request);
    const query = parse(RunListQuerySchema, request.query, "query");
    // A developer lists their own sessions' runs (docs/api.md, Roles: run list).
    const runs = await deps.repos.runs.list({
      ...listScope(principal, "run", "list"),
      ...(query.sessionId ? { sessionId: query.sessionId } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...(query.outcome ? { outcome: query.outcome } : {}),
      ...(query.before ? { before: new Date(query.before) } : {}),
      limit: query.limit,
    });
    return { runs };
  });

  app.get<{ Params: { id: string } }>("/api/runs/:id", async (request): Promise<RunDetail> => {
    const run = await findVisibleRun(deps.repos.runs, request.params.id, requirePrincipal(request));
    return { run, toolCalls: await deps.repos.toolCalls.listForRun(run.id) };
  });

  app.get<{ Params: { id: string } }>("/api/runs/:id/logs", async (request, reply) => {
    const run = await findVisibleRun(deps.repos.runs, request.params.id, requirePrincipal(request), "logs");
    const query = parse(RunLogsQuerySchema, request.query, "query");
    await deps.logs.ready(run);
    if (query.download === "1") {
      // Streamed from disk: a 100 MB log never sits in the runner's memory. A `Range` header streams one
      // byte range of it (206): how the IDE reads a log, in one request instead of pages.
      const size = logSize(deps.dataDir, run.id, query.stream);
      const range = parseByteRange(request.headers.range, size);
      if (range === "unsatisfiable") {
        reply.header("content-range", `bytes */${size}`);
        throw new AppError({ code: "bad_request", status: 416, message: `Range ${request.headers.range} starts at or past the end of the log (${size} bytes)` });
      }
      const { start, end } = range ?? { start: 0, end: size };
      reply
        .header("content-type", "text/plain; charset=utf-8")
        .header("content-disposition", `attachment; filename="${run.id}-${query.stream}.log"`)
        .header("accept-ranges", "bytes")
        .header("content-length", end - start);
      if (range) reply.status(206).header("content-range", `bytes ${start}-${end - 1}/${size}`);
      return reply.send(logRangeStream(LogReader.open(deps.dataDir, run.id, query.stream), { start, end }));
    }
    const { content, size } = readLog(deps.dataDir, run.id, query.stream, query.offset, query.limit);
    const nextOffset = Math.min(size, query.offset + content.length);
    const page = { content: content.toString("utf8"), offset: query.offset, nextOffset, size, done: run.status !== "running" && nextOffset >= size } satisfies RunLogPage;
    if (query.timestamps !== "1") return page;
    // When each chunk of the page arrived, from the times index written beside the logs.
    return { ...page, times: readLogTimes(RunLogs.dirFor(deps.dataDir, run.id), query.stream, query.offset, nextOffset) } satisfies RunLogPage;
  });

  // The times of a byte range, for a reader of the streamed range above (its bytes carry no times).
  app.get<{ Params: { id: string } }>("/api/runs/:id/logs/times", async (request): Promise<RunLogTimesResult> => {
    const run = await findVisibleRun(deps.repos.runs, request.params.id, requirePrincipal(request), "logs");
    const query = parse(RunLogTimesQuerySchema, request.query, "query");
    await deps.logs.ready(run);
    const size = logSize(deps.dataDir, run.id, query.stream);
    return { times: readLogTimes(RunLogs.dirFor(deps.dataDir, run.id), query.stream, query.offset, Math.min(size, query.end ?? size)), size };
  });
}
