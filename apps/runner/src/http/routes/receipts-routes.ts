import type { FastifyInstance } from "fastify";
import { AppError, RotateReceiptKeyRequestSchema, VerifyReceiptRequestSchema, type ReceiptKeys, type RotateReceiptKeyResult, type SharedReceipt, type ShareLink } from "@berth/protocol";
import type { Repositories } from "@berth/db";
import { authorize } from "../../auth/authorize";
import type { ReceiptService } from "../../receipts/receipt-service";
import type { RunLogStore } from "../../cluster/run-log-store";
import { readLog } from "../../runs/run-logs";
import { requirePrincipal } from "../build-server";
import { parse } from "../validate";

const SHARED_LOG_TAIL_BYTES = 64 * 1024;

export function registerReceiptRoutes(
  app: FastifyInstance,
  deps: {
    repos: Pick<Repositories, "runs">;
    dataDir: string;
    receipts: ReceiptService;
    webOrigin: string;
    approvals?: { get(id: string): Promise<{ text: string } | undefined> };
    /** Makes this runner's files of a run hold its log before the share page's tail is read (another runner may have written it). */
    logs: Pick<RunLogStore, "ready">;
  },
): void {
  app.get("/api/receipts/public-key", async () => deps.receipts.publicKey());

  // Public like public-key: every runner's keys, so a receipt sealed on any runner verifies anywhere.
  app.get("/api/receipts/keys", async (): Promise<ReceiptKeys> => ({ keys: await deps.receipts.keys() }));

  // Rotates the key of the runner that answers (send it to that runner's own URL, BERTH_RUNNER_URL).
  app.post("/api/receipts/keys/rotate", async (request): Promise<RotateReceiptKeyResult> => {
    authorize(requirePrincipal(request), "receipt", "rotateKey");
    const body = parse(RotateReceiptKeyRequestSchema, request.body ?? {});
    if (body.runnerId !== undefined && body.runnerId !== deps.receipts.runnerId) {
      throw new AppError({ code: "conflict", message: `runnerId ${body.runnerId} is not this runner (${deps.receipts.runnerId}): send the rotation to that runner's own URL` });
    }
    return deps.receipts.rotateKey();
  });

  app.post("/api/receipts/verify", async (request) => {
    authorize(requirePrincipal(request), "receipt", "verify");
    const body = parse(VerifyReceiptRequestSchema, request.body);
    return deps.receipts.verify(body.receipt);
  });

  /** The receipt if the caller may do `action` (docs/api.md, Roles); it belongs to its run's session's owner. */
  const receiptFor = async (id: string, request: Parameters<typeof requirePrincipal>[0], action: "read" | "share" | "unshare") => {
    const principal = requirePrincipal(request);
    const found = await deps.receipts.get(id);
    if (!found) throw new AppError({ code: "not_found", message: `Receipt not found: ${id}` });
    const target = { id, ownerId: await deps.repos.runs.ownerOf(found.runId) };
    authorize(principal, "receipt", "read", target);
    if (action !== "read") authorize(principal, "run", action, target);
    return found;
  };

  app.get<{ Params: { id: string } }>("/api/receipts/:id", async (request) => {
    const { receipt } = await receiptFor(request.params.id, request, "read");
    return receipt;
  });

  app.post<{ Params: { id: string } }>("/api/receipts/:id/share", async (request, reply) => {
    await receiptFor(request.params.id, request, "share");
    const { token } = await deps.receipts.share(request.params.id);
    return reply.status(201).send({ token, url: `${deps.webOrigin}/share/${token}` } satisfies ShareLink);
  });

  app.delete<{ Params: { id: string } }>("/api/receipts/:id/share", async (request, reply) => {
    await receiptFor(request.params.id, request, "unshare");
    await deps.receipts.revokeShares(request.params.id);
    return reply.status(204).send();
  });

  /** What the receipt's approvals said (a run_script's text holds the script): only those it lists. */
  const approvalTexts = async (ids: string[]) => {
    const texts: { id: string; text: string }[] = [];
    for (const id of ids.slice(0, 16)) {
      const found = await deps.approvals?.get(id);
      if (found) texts.push({ id, text: found.text });
    }
    return texts;
  };

  // Public: a share link shows the receipt, its verification and the run's logs, nothing else of the session.
  app.get<{ Params: { token: string } }>("/api/shared/:token", async (request): Promise<SharedReceipt> => {
    const { receipt, runId } = await deps.receipts.resolveShare(request.params.token);
    const run = await deps.repos.runs.get(runId);
    // A receipt goes with its run (onDelete: Cascade): a link whose run is gone shows nothing.
    if (!run) throw new AppError({ code: "not_found", message: "This share link does not exist or was revoked" });
    await deps.logs.ready(run);
    const tail = (stream: "stdout" | "stderr" | "combined") => {
      // combined is both streams in the order written (the share page's log view splits it back).
      const size = stream === "stdout" ? run.stdoutBytes : stream === "stderr" ? run.stderrBytes : run.stdoutBytes + run.stderrBytes;
      const offset = Math.max(0, size - SHARED_LOG_TAIL_BYTES);
      return { content: readLog(deps.dataDir, run.id, stream, offset, SHARED_LOG_TAIL_BYTES).content.toString("utf8"), offset, size };
    };
    const { id, tool, status, outcome, exitCode, startedAt, endedAt, durationMs } = run;
    return {
      receipt,
      verification: await deps.receipts.verify(receipt),
      publicKey: await deps.receipts.keyOf(receipt),
      run: { id, tool, status, outcome, exitCode, startedAt, endedAt, durationMs },
      logs: { stdout: tail("stdout"), stderr: tail("stderr"), combined: tail("combined") },
      approvalTexts: await approvalTexts(receipt.body.approvals.map((a) => a.id)),
    };
  });
}
