import type { Metadata } from "next";
import { Link } from "@/components/ui/link";
import { fetchShared } from "@/lib/runner";
import type { SharedReceipt } from "@/lib/api";
import { SharedLog } from "@/components/runs/shared-log";
import { BrowserVerifiedReceipt } from "@/components/receipts/browser-verified-receipt";
import { StatusBadge } from "@/components/ui/states";

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
      <div className="card">
        <h2>Log</h2>
        <SharedLog logs={data.logs} runId={body.run.id} />
      </div>
    </>
  );
}
