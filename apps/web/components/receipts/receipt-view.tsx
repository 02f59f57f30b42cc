"use client";
import { callerLabel, type Receipt, type Verification } from "@/lib/api";
import { formatBytes, formatDuration, formatTime } from "@/lib/format";
import { StatusBadge } from "@/components/ui/states";

export function VerifiedBadge({ verification }: { verification: Verification | null | undefined }) {
  if (!verification) {
    return (
      <span className="verify pending" data-testid="receipt-verification" data-valid="pending">
        <span className="spinner" /> verifying…
      </span>
    );
  }
  return verification.valid ? (
    <span className="verify valid" data-testid="receipt-verification" data-valid="true">
      ✓ Verified signature
    </span>
  ) : (
    <span className="verify invalid" data-testid="receipt-verification" data-valid="false" title={verification.reason}>
      ✗ Not valid{verification.reason ? `: ${verification.reason}` : ""}
    </span>
  );
}

export function downloadText(name: string, text: string, type = "text/plain") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A signed receipt, read-only: what ran, where, the hashes, the approvals, and the signature. */
export function ReceiptView({ receipt, verification }: { receipt: Receipt; verification: Verification | null | undefined }) {
  const body = receipt.body;
  return (
    <div className="stack" data-testid="receipt">
      <div className="row wrap">
        <VerifiedBadge verification={verification} />
        <span className="muted tiny">
          Ed25519 key <code>{receipt.signature.keyId}</code> · ledger seq {body.seq}
        </span>
        <div className="spacer" />
        <button className="btn small" onClick={() => downloadText(`receipt-${body.id}.json`, JSON.stringify(receipt, null, 2), "application/json")} data-testid="download-receipt">
          Download JSON
        </button>
      </div>
      <p className="tiny" data-testid="receipt-meaning">
        <strong>What “verified” proves:</strong> this receipt was signed by the runner key <code>{receipt.signature.keyId}</code> and not altered since — this
        exact run (its tool, arguments and script, by sha256), these outputs and logs (by sha256) and the approvals it lists. It does not prove the script was
        right or safe, that those files still hold the same bytes today (compare their sha256), or that the key is one your team trusts.
      </p>
      <dl className="kv">
        <dt>Receipt</dt>
        <dd className="mono">{body.id}</dd>
        <dt>Issued</dt>
        <dd>{formatTime(body.issuedAt)}</dd>
        <dt>Tool</dt>
        <dd>
          {body.run.tool}
          {body.run.actionClass ? <span className="muted"> ({body.run.actionClass})</span> : null}
        </dd>
        <dt>By</dt>
        <dd data-testid="receipt-caller">
          <span className="mono">{body.run.userId}</span>
          {body.run.caller ? <span className="muted"> · {callerLabel(body.run.caller)}</span> : null}
        </dd>
        <dt>Outcome</dt>
        <dd>
          <StatusBadge value={body.outcome} testId="receipt-outcome" /> {body.exitCode !== null ? <span className="muted">exit {body.exitCode}</span> : null}
        </dd>
        <dt>Timing</dt>
        <dd>
          {formatTime(body.timing.startedAt)} · {formatDuration(body.timing.durationMs)}
          {body.timing.approvalWaitMs !== null ? <span className="muted"> · waited {formatDuration(body.timing.approvalWaitMs)} for approval</span> : null}
        </dd>
        {body.script ? (
          <>
            <dt>Script</dt>
            <dd>
              <span className="mono">{body.script.path}</span> <span className="sha">sha256 {body.script.sha256}</span>
            </dd>
          </>
        ) : null}
        <dt>Digest</dt>
        <dd className="sha" data-testid="receipt-digest">
          {receipt.digest}
        </dd>
        <dt>Previous</dt>
        <dd className="sha">{body.prevDigest ?? "— (first in ledger)"}</dd>
        <dt>Approvals</dt>
        <dd data-testid="receipt-approvals">
          {body.approvals.length === 0 ? (
            <span className="muted">none needed</span>
          ) : (
            body.approvals.map((approval) => (
              <div key={approval.id} data-testid="receipt-approval">
                approved by <strong>{approval.approvedBy}</strong> at {formatTime(approval.approvedAt)} <span className="sha">sha256 {approval.sha256.slice(0, 16)}…</span>
              </div>
            ))
          )}
        </dd>
        {body.sandbox ? (
          <>
            <dt>Sandbox</dt>
            <dd className="tiny">
              network <code>{body.sandbox.posture.network}</code> · image <code>{body.sandbox.imageId.slice(0, 19)}</code>
            </dd>
          </>
        ) : null}
      </dl>
      {body.inputs.length + body.outputs.length + body.logs.length > 0 ? (
        <table className="table compact">
          <thead>
            <tr>
              <th>File</th>
              <th>Kind</th>
              <th>Bytes</th>
              <th>sha256</th>
            </tr>
          </thead>
          <tbody>
            {body.inputs.map((file) => (
              <tr key={`in-${file.path}`}>
                <td className="mono">{file.path}</td>
                <td>input</td>
                <td>{formatBytes(file.bytes)}</td>
                <td className="sha">{file.sha256}</td>
              </tr>
            ))}
            {body.outputs.map((file) => (
              <tr key={`out-${file.path}`}>
                <td className="mono">{file.path}</td>
                <td>output ({file.status})</td>
                <td>{formatBytes(file.bytes)}</td>
                <td className="sha">{file.sha256 ?? "—"}</td>
              </tr>
            ))}
            {body.logs.map((log) => (
              <tr key={`log-${log.name}`}>
                <td className="mono">{log.name}</td>
                <td>log</td>
                <td>{formatBytes(log.bytes)}</td>
                <td className="sha">{log.sha256}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <details>
        <summary>Raw receipt</summary>
        <pre className="block">{JSON.stringify(receipt, null, 2)}</pre>
      </details>
    </div>
  );
}
