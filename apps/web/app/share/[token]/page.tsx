import type { Metadata } from "next";
import { Link } from "@/components/ui/link";
import { fetchShared } from "@/lib/runner";
import { sharedLogText, type SharedReceipt } from "@/lib/api";
import { ReceiptView } from "@/components/receipts/receipt-view";
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
        {/* verification comes from the runner's public endpoint; verify offline with `npx berth-verify <url>` */}
        <ReceiptView receipt={data.receipt} verification={data.verification ?? { valid: false, reason: "the server sent no verification" }} />
        <p className="muted tiny" style={{ marginTop: 12 }}>
          Check it yourself offline: download the JSON and run <code>npx berth-verify receipt.json</code> with the runner&apos;s public key (
          <a href="/api/receipts/public-key">public key</a>).
        </p>
      </div>
      <div className="grid-2">
        <div className="card">
          <h2>stdout</h2>
          <div className="log-box">
            <pre className="output" data-testid="shared-stdout">
              {sharedLogText(data.logs?.stdout) || <span className="muted">empty</span>}
            </pre>
          </div>
        </div>
        <div className="card">
          <h2>stderr</h2>
          <div className="log-box">
            <pre className="output" data-testid="shared-stderr">
              {sharedLogText(data.logs?.stderr) || <span className="muted">empty</span>}
            </pre>
          </div>
        </div>
      </div>
    </>
  );
}
