"use client";
import { useCallback, useEffect, useState } from "react";
import { Link } from "@/components/ui/link";
import { LongText } from "@/components/ui/long-text";
import { ApprovalDiff } from "@/components/approvals/approval-diff";
import { listApprovals, type ApprovalRequest, type Parked } from "@/lib/api";
import { getSocket, onEveryConnect } from "@/lib/socket";

/**
 * The session's parked calls, live: loaded once, then kept by approval:created / approval:decided (a
 * decided call leaves at once, whoever decided it and wherever). Someone who may not see approvals gets
 * an empty list; their own parked call is still shown from its 202.
 */
export function usePendingApprovals(sessionId: string) {
  const [pending, setPending] = useState<ApprovalRequest[]>([]);
  const [decided, setDecided] = useState<ReadonlySet<string>>(new Set());
  const markDecided = useCallback((id: string) => {
    setPending((old) => old.filter((a) => a.id !== id));
    setDecided((old) => new Set(old).add(id));
  }, []);
  useEffect(() => {
    let cancelled = false;
    const socket = getSocket();
    const load = () =>
      void listApprovals("pending")
        .then((list) => !cancelled && setPending(list.filter((a) => a.sessionId === sessionId)))
        .catch(() => undefined);
    const onCreated = (request: ApprovalRequest) => {
      if (request.sessionId === sessionId && request.status === "pending") setPending((old) => (old.some((a) => a.id === request.id) ? old : [...old, request]));
    };
    const onDecided = (request: ApprovalRequest) => markDecided(request.id);
    socket.on("approval:created", onCreated);
    socket.on("approval:decided", onDecided);
    const stop = onEveryConnect(socket, () => {
      socket.emit("approvals:subscribe");
      load();
    });
    return () => {
      cancelled = true;
      socket.off("approval:created", onCreated);
      socket.off("approval:decided", onDecided);
      stop();
    };
  }, [sessionId, markDecided]);
  return { pending, decided, markDecided };
}

type Shown = { approvalId: string; sha256: string; text: string; tool?: string; requestedBy?: string; mine: boolean; request?: ApprovalRequest };

/**
 * Banners for the parked calls of this session: the text the decision binds to and its sha256; Approve &
 * run / Deny for an operator or admin (the same hash-bound decision as the Approvals page), Cancel for
 * whoever asked.
 */
export function ParkedCalls({
  mine,
  pending,
  me,
  canDecide,
  onCancel,
  onDecide,
}: {
  mine: Parked | null;
  pending: ApprovalRequest[];
  me: { name: string } | undefined;
  canDecide: boolean;
  onCancel: (request: { approvalId: string; sha256: string }) => void;
  onDecide: (request: ApprovalRequest, decision: "approve" | "deny") => Promise<void>;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  const shown: Shown[] = pending.map((request) => ({
    approvalId: request.id,
    sha256: request.sha256,
    text: request.text,
    tool: request.tool,
    requestedBy: request.requestedBy,
    mine: request.id === mine?.approvalId || (!!me && request.requestedBy === me.name),
    request,
  }));
  if (mine && !shown.some((s) => s.approvalId === mine.approvalId)) shown.unshift({ approvalId: mine.approvalId, sha256: mine.sha256, text: mine.text, mine: true });
  if (shown.length === 0) return null;
  return (
    <div className="parked-list">
      {shown.map((call) => (
        <div key={call.approvalId} className="parked-banner" data-testid="parked-banner" data-approval-id={call.approvalId}>
          <strong>⏸ {call.tool ? `${call.tool} is waiting` : "Waiting"} for approval</strong>
          <span className="muted">
            {" "}
            {call.requestedBy ? `— asked by ${call.requestedBy}` : ""}
            {canDecide ? "" : <> — an operator decides here or on the <Link href="/approvals">Approvals</Link> page</>}. Approval <code>{call.approvalId}</code>, sha256{" "}
            <code data-testid="parked-sha256">{call.sha256.slice(0, 16)}…</code>
          </span>
          <LongText className="parked-text" text={call.text} />
          {call.tool ? <ApprovalDiff approval={{ id: call.approvalId, tool: call.tool, text: call.text }} /> : null}
          <div className="row">
            {canDecide && call.request ? (
              <>
                <button
                  className="btn primary small"
                  disabled={busy === call.approvalId}
                  data-testid="approve-inline"
                  onClick={() => {
                    setBusy(call.approvalId);
                    void onDecide(call.request!, "approve").finally(() => setBusy(null));
                  }}
                >
                  Approve &amp; run
                </button>
                <button
                  className="btn small danger"
                  disabled={busy === call.approvalId}
                  data-testid="deny-inline"
                  onClick={() => {
                    setBusy(call.approvalId);
                    void onDecide(call.request!, "deny").finally(() => setBusy(null));
                  }}
                >
                  Deny
                </button>
              </>
            ) : null}
            {call.mine ? (
              <button className="btn small ghost" data-testid="cancel-inline" onClick={() => onCancel({ approvalId: call.approvalId, sha256: call.sha256 })}>
                Cancel
              </button>
            ) : null}
          </div>
        </div>
      ))}
    </div>
  );
}
