import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { AppError } from "@berth/protocol";
import type { Database } from "@berth/db";
import type { ReceiptService } from "../../receipts/receipt-service";
import { readLog } from "../../runs/run-logs";
import { requirePrincipal } from "../build-server";
import { parse } from "../validate";
import { findVisibleRun, runView } from "./runs-routes";

const VerifyBodySchema = z.object({ receipt: z.unknown() });
const SHARED_LOG_TAIL_BYTES = 64 * 1024;

export function registerReceiptRoutes(app: FastifyInstance, deps: { db: Database; dataDir: string; receipts: ReceiptService; webOrigin: string }): void {
  app.get("/api/receipts/public-key", async () => deps.receipts.publicKey());

  app.post("/api/receipts/verify", async (request) => {
    const body = parse(VerifyBodySchema, request.body);
    return deps.receipts.verify(body.receipt);
  });

  const visibleReceipt = async (id: string, request: Parameters<typeof requirePrincipal>[0]) => {
    const found = await deps.receipts.get(id);
    if (!found) throw new AppError({ code: "not_found", message: `Receipt not found: ${id}` });
    await findVisibleRun(deps.db, found.runId, requirePrincipal(request));
    return found;
  };

  app.get<{ Params: { id: string } }>("/api/receipts/:id", async (request) => {
    const { receipt } = await visibleReceipt(request.params.id, request);
    return receipt;
  });

  app.post<{ Params: { id: string } }>("/api/receipts/:id/share", async (request, reply) => {
    await visibleReceipt(request.params.id, request);
    const { token } = await deps.receipts.share(request.params.id);
    return reply.status(201).send({ token, url: `${deps.webOrigin}/share/${token}` });
  });

  app.delete<{ Params: { id: string } }>("/api/receipts/:id/share", async (request, reply) => {
    await visibleReceipt(request.params.id, request);
    await deps.receipts.revokeShares(request.params.id);
    return reply.status(204).send();
  });

  // Public: a share link shows the receipt, its verification and the run's logs, nothing else of the session.
  app.get<{ Params: { token: string } }>("/api/shared/:token", async (request) => {
    const { receipt, runId } = await deps.receipts.resolveShare(request.params.token);
    const run = await deps.db.run.findUniqueOrThrow({ where: { id: runId }, include: { receipt: { select: { id: true } } } });
    const tail = (stream: "stdout" | "stderr") => {
      const size = stream === "stdout" ? run.stdoutBytes : run.stderrBytes;
      const offset = Math.max(0, size - SHARED_LOG_TAIL_BYTES);
      return { content: readLog(deps.dataDir, run.id, stream, offset, SHARED_LOG_TAIL_BYTES).content.toString("utf8"), offset, size };
    };
    const { id, tool, status, outcome, exitCode, startedAt, endedAt, durationMs } = runView(run);
    return {
      receipt,
      verification: await deps.receipts.verify(receipt),
      publicKey: deps.receipts.publicKey(),
      run: { id, tool, status, outcome, exitCode, startedAt, endedAt, durationMs },
      logs: { stdout: tail("stdout"), stderr: tail("stderr") },
    };
  });
}
