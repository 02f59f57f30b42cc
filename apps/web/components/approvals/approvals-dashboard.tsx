"use client";
import { Link } from "@/components/ui/link";
import { useEffect, useState } from "react";
import { createPolicyRule, decideApproval, errorMessage, listApprovals, type ApprovalRequest } from "@/lib/api";
import { formatRelative, formatTime, shortId } from "@/lib/format";
import { getSocket, onEveryConnect, useSocketState } from "@/lib/socket";
import { useAsync } from "@/components/ui/use-async";
import { EmptyState, ErrorState, SocketStatus, Spinner, StatusBadge } from "@/components/ui/states";
import { LongText } from "@/components/ui/long-text";
import { boundContent } from "@/lib/bound-content";
import { ApprovalDiff } from "./approval-diff";

function upsert(list: ApprovalRequest[] | undefined, approval: ApprovalRequest): ApprovalRequest[] {
  const rest = (list ?? []).filter((a) => a.id !== approval.id);
  return [approval, ...rest].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

function PendingCard({ approval, canDecide, onDecided }: { approval: ApprovalRequest; canDecide: boolean; onDecided: (approval: ApprovalRequest) => void }) {
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState<"approve" | "deny" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const expired = new Date(approval.expiresAt).getTime() < Date.now();
  const script = boundContent(approval.text);

  const decide = async (decision: "approve" | "deny") => {
    setBusy(decision);
    setError(null);
    try {
      const answer = (await decideApproval(approval.id, decision, approval.sha256, note.trim() || undefined)) as Partial<ApprovalRequest> | { approval?: ApprovalRequest } | null;
      const updated = answer && "approval" in answer && answer.approval ? answer.approval : (answer as Partial<ApprovalRequest> | null);
      onDecided({ ...approval, status: decision === "approve" ? "approved" : "denied", decidedAt: new Date().toISOString(), ...(updated && "id" in updated ? updated : {}) } as ApprovalRequest);
    } catch (caught) {
      setError(errorMessage(caught));
      setBusy(null);
    }
  };

  return (
    <div className="card approval" data-testid="pending-approval" data-approval-id={approval.id}>
      <div className="row wrap" style={{ marginBottom: 10 }}>
        <StatusBadge value="pending" />
        <strong className="mono">{approval.tool}</strong>
        <span className="badge muted">{approval.actionClass}</span>
        <span className="muted tiny">
          session <Link href={`/runs?sessionId=${approval.sessionId}`}>{shortId(approval.sessionId)}</Link> · requested by {approval.requestedBy} · {formatRelative(approval.createdAt)}
        </span>
        <div className="spacer" />
        <span className={`tiny ${expired ? "bad-text" : "muted"}`}>{expired ? "expired" : `expires ${formatTime(approval.expiresAt)}`}</span>
      </div>
      <LongText className="block" testId="approval-text" text={approval.text} />
      {script ? (
        <details open style={{ marginTop: 8 }} data-testid="approval-script">
          <summary className="tiny muted">
            Runs exactly this content: {script.title}{script.truncated ? ", shown in part" : ""}
          </summary>
          <LongText className="block mono" testId="approval-script-content" text={script.content} />
        </details>
      ) : null}
      <ApprovalDiff approval={approval} />
      <div className="row wrap" style={{ marginTop: 10 }}>
        <span className="muted tiny">sha256</span>
        <span className="sha" data-testid="approval-sha256">
          {approval.sha256}
        </span>
      </div>
      {canDecide && approval.script ? <TrustScript tool={approval.tool} script={approval.script} approvalId={approval.id} /> : null}
      {canDecide ? (
        <div className="row wrap" style={{ marginTop: 12 }}>
          <input value={note} onChange={(event) => setNote(event.target.value)} placeholder="Note (optional)" maxLength={2000} style={{ flex: 1, minWidth: 200 }} data-testid="approval-note" />
          <button className="btn ok" onClick={() => void decide("approve")} disabled={!!busy} data-testid="approve">
            {busy === "approve" ? "Approving…" : "Approve"}
          </button>
          <button className="btn danger solid" onClick={() => void decide("deny")} disabled={!!busy} data-testid="deny">
            {busy === "deny" ? "Denying…" : "Deny"}
          </button>
        </div>
      ) : (
        <p className="muted tiny">Only operators and admins decide approvals.</p>
      )}
      {error ? <ErrorState message={error} /> : null}
    </div>
  );
}

/**
 * A function tool's call runs a workspace script: an operator who trusts those bytes adds the allow rule naming
 * them from here (the settings page's policy rules list it), so the tool's next calls run unasked while the script is
 * unchanged. This call still waits for its own decision.
 */
function TrustScript({ tool, script, approvalId }: { tool: string; script: NonNullable<ApprovalRequest["script"]>; approvalId: string }) {
  const [state, setState] = useState<"idle" | "busy" | "trusted">("idle");
  const [error, setError] = useState<string | null>(null);
  const trust = async () => {
    setState("busy");
    setError(null);
    try {
      await createPolicyRule({ tool, effect: "allow", scriptSha256: script.sha256, description: `Trusts ${script.path} as it was in approval ${approvalId}` });
      setState("trusted");
    } catch (caught) {
      setError(errorMessage(caught));
      setState("idle");
    }
  };
  return (
    <div className="row wrap" style={{ marginTop: 10 }} data-testid="trust-script">
      <span className="muted tiny">
        Runs the workspace script <span className="mono">{script.path}</span>, sha256
      </span>
      <span className="sha">{script.sha256}</span>
      <div className="spacer" />
      {state === "trusted" ? (
        <span className="tiny" style={{ color: "var(--ok)" }} data-testid="trust-script-done">
          Trusted: {tool} runs unasked while {script.path} has these bytes (Settings, Policy rules)
        </span>
      ) : (
        <button className="btn small" onClick={() => void trust()} disabled={state === "busy"} title={`Add a policy rule allowing ${tool} while ${script.path} has this sha256`} data-testid="trust-script-button">
          {state === "busy" ? "Trusting…" : "Trust this script"}
        </button>
      )}
      {error ? <ErrorState message={error} /> : null}
    </div>
  );
}

export function ApprovalsDashboard({ role }: { role: string }) {
  const approvals = useAsync(() => listApprovals(), []);
  const socketState = useSocketState();
  const canDecide = role === "operator" || role === "admin";

  useEffect(() => {
    const socket = getSocket();
    const onChange = (approval: ApprovalRequest) => approvals.setData((old) => upsert(old, approval));
    socket.on("approval:created", onChange);
    socket.on("approval:decided", onChange);
    const stop = onEveryConnect(socket, () => {
      socket.emit("approvals:subscribe");
      // Anything created while disconnected.
      void approvals.reload();
    });
    return () => {
      socket.off("approval:created", onChange);
      socket.off("approval:decided", onChange);
      stop();
    };
  }, []);

  const all = approvals.data ?? [];
  const pending = all.filter((a) => a.status === "pending");
  const history = all.filter((a) => a.status !== "pending");

  return (
    <>
      <div className="page-head">
        <h1>Approvals</h1>
        <SocketStatus state={socketState} />
      </div>
      <h2>
        Pending <span className="muted">({pending.length})</span>
      </h2>
      {approvals.error && !approvals.data ? (
        <ErrorState message={approvals.error} onRetry={() => void approvals.reload()} />
      ) : !approvals.data ? (
        <Spinner label="Loading approvals…" />
      ) : pending.length === 0 ? (
        <EmptyState title="Nothing waiting" testId="approvals-empty">
          Calls that need an operator appear here as soon as they are parked, with the exact text and its sha256.
        </EmptyState>
      ) : (
        <div data-testid="pending-list">
          {pending.map((approval) => (
            <PendingCard key={approval.id} approval={approval} canDecide={canDecide} onDecided={(decided) => approvals.setData((old) => upsert(old, decided))} />
          ))}
        </div>
      )}
      <h2 className="section-title">History</h2>
      {history.length === 0 ? (
        approvals.data ? (
          <EmptyState title="No decisions yet" />
        ) : null
      ) : (
        <div className="card flush">
          <table className="table compact" data-testid="approvals-history">
            <thead>
              <tr>
                <th>Tool</th>
                <th>Request</th>
                <th>Decision</th>
                <th>By</th>
                <th>When</th>
                <th>Note</th>
              </tr>
            </thead>
            <tbody>
              {history.map((approval) => (
                <tr key={approval.id} data-testid="history-row" data-approval-id={approval.id}>
                  <td className="mono">{approval.tool}</td>
                  <td className="mono tiny ellipsis" style={{ maxWidth: 360 }} title={approval.text.slice(0, 2000)}>
                    {approval.text.slice(0, 2000).split("\n")[0]}
                  </td>
                  <td>
                    <StatusBadge value={approval.status} testId="history-status" />
                  </td>
                  <td data-testid="history-decided-by">{approval.decidedBy ?? (approval.cause ? <span className="muted">{approval.cause}</span> : "—")}</td>
                  <td className="muted">{formatTime(approval.decidedAt ?? approval.expiresAt)}</td>
                  <td className="muted tiny">{approval.note ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
