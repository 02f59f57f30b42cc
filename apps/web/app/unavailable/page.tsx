import type { Metadata } from "next";
import { Link } from "@/components/ui/link";
import { fetchHealth, runnerUrl } from "@/lib/runner";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Runner unavailable" };

/** Where pages send the user when the runner does not answer: says so plainly, with a way back. */
export default async function UnavailablePage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  const back = next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
  const health = await fetchHealth();
  return (
    <div className="app-shell">
      <header className="topbar">
        <Link className="brand" href="/">
          ⚓ Berth
        </Link>
      </header>
      <main className="page narrow">
        <div className="card" data-testid="runner-down">
          <h1>The runner is not answering</h1>
          {health.reachable ? (
            <p>
              It answers again now. <Link href={back}>Continue</Link>
            </p>
          ) : (
            <>
              <p className="muted">
                Berth&apos;s runner at <code>{runnerUrl()}</code> does not respond ({health.error}). Your sessions and files are kept; start the
                runner with <code>npm start</code> and retry.
              </p>
              <a className="btn primary" href={`/unavailable?next=${encodeURIComponent(back)}`} data-testid="retry">
                Retry
              </a>
            </>
          )}
        </div>
      </main>
    </div>
  );
}
