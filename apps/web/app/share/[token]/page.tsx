import { createHash } from "node:crypto";
import type { Metadata } from "next";
import { Link } from "@/components/ui/link";
import { fetchShared } from "@/lib/runner";
import type { SharedReceipt } from "@/lib/api";
import { SharedLog } from "@/components/runs/shared-log";
import { BrowserVerifiedReceipt } from "@/components/receipts/browser-verified-receipt";
import { StatusBadge } from "@/components/ui/states";
import { LongText } from "@/components/ui/long-text";
import { boundContent, type BoundContent } from "@/lib/bound-content";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Shared receipt", robots: { index: false } };

/** Public and read-only: the receipt, its verification and the run's logs — nothing else of the session. */
export default async function SharedReceiptPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const result = await fetchShared(token);
  return (
    <div className="app-shell">
      <header className="topbar">
        <Link className="brand" href="/">
          ⚓ Berth
        </Link>
        <span className="muted">Shared receipt</span>
      </header>
      <main className="page">
        {!result.ok ? (
          <div className="card" data-testid="share-error">
            <h1>{result.status === 404 ? "This link does not exist or was revoked" : "The receipt cannot be shown"}</h1>
            <p className="muted">{result.message}</p>
          </div>
        ) : (
          <SharedView data={result.data as SharedReceipt} />
        )}
      </main>
    </div>
  );
}

/** What the run wrote to stdout and stderr, as its receipt records (a process's combined log would count twice). */
const printedBytes = (logs: readonly { name: string; bytes: number }[]) => logs.filter((log) => log.name === "stdout" || log.name === "stderr").reduce((sum, log) => sum + log.bytes, 0);

function SharedView({ data }: { data: SharedReceipt }) {
  const body = data.receipt.body;
  return (
    <>
      <div className="page-head">
        <h1>Receipt for run {body.run.id}</h1>
        <StatusBadge value={body.outcome} />
      </div>
      <div className="card">
        <BrowserVerifiedReceipt receipt={data.receipt} publicKey={data.publicKey} serverVerification={data.verification} />
      </div>
      <ScriptAsRun data={data} />
      <div className="card">
        <h2>Log</h2>
        <SharedLog logs={data.logs} runId={body.run.id} printedBytes={printedBytes(body.logs)} />
      </div>
    </>
  );
}

/**
 * A run_script's script as its approval text bound it, when that text hashes to an approval sha256 the
 * signed receipt lists and its content block carries the receipt's script sha256: then these are the bytes
 * that ran, as signed. A run that was never parked has no such text, and nothing is shown.
 */
function scriptOf(data: SharedReceipt): (BoundContent & { approvalId: string }) | undefined {
  const script = data.receipt.body.script;
  if (!script) return undefined;
  for (const { id, text } of data.approvalTexts ?? []) {
    const signed = data.receipt.body.approvals.find((a) => a.id === id);
    if (!signed || createHash("sha256").update(text, "utf8").digest("hex") !== signed.sha256) continue;
    const bound = boundContent(text);
    if (bound?.title.includes(`sha256 ${script.sha256}`)) return { ...bound, approvalId: id };
  }
  return undefined;
}

function ScriptAsRun({ data }: { data: SharedReceipt }) {
  const script = scriptOf(data);
  if (!script) return null;
  return (
    <div className="card" data-testid="shared-script">
      <h2>Script</h2>
      <p className="muted tiny">
        {script.title}
        {script.truncated ? ", shown in part" : ""} — as approval {script.approvalId} bound it; that approval&apos;s sha256 is signed in this receipt.
      </p>
      <LongText className="block mono" testId="shared-script-content" text={script.content} />
    </div>
  );
}
