import type { Metadata } from "next";
import { currentUser } from "@/lib/auth";
import { fetchHealth } from "@/lib/runner";
import { SessionsPanel } from "@/components/sessions/sessions-panel";
import { Link } from "@/components/ui/link";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sessions" };

function Status({ ok, label, detail }: { ok: boolean; label: string; detail: string }) {
  return (
    <div className="row" data-testid={`health-${label.toLowerCase()}`}>
      <span className={`badge ${ok ? "ok" : "bad"}`}>{ok ? "● up" : "● down"}</span>
      <strong>{label}</strong>
      <span className="muted">{detail}</span>
    </div>
  );
}

export default async function HomePage() {
  const [result, user] = await Promise.all([fetchHealth(), currentUser()]);
  return (
    <main className="page">
      {user.kind === "ok" ? (
        <SessionsPanel />
      ) : user.kind === "unauthorized" && result.reachable ? (
        <div className="card hero" data-testid="signed-out">
          <h1>Welcome to Berth</h1>
          <p className="muted">A browser IDE whose code runs in a locked-down container, with a signed receipt for every run.</p>
          <Link className="btn primary" href="/login">
            Sign in with a token
          </Link>
        </div>
      ) : null}
      <h2 className="section-title">Runner health</h2>
      {result.reachable ? (
        <div className="card health" data-testid="health">
          <Status ok={result.health.ok} label="Runner" detail={result.health.ok ? "ready" : "degraded"} />
          <Status ok={result.health.docker.ok} label="Docker" detail={result.health.docker.version ?? result.health.docker.error ?? ""} />
          <Status ok={result.health.db.ok} label="Database" detail={result.health.db.ok ? `${result.health.db.latencyMs} ms` : (result.health.db.error ?? "")} />
        </div>
      ) : (
        <div className="card" data-testid="runner-down">
          <Status ok={false} label="Runner" detail="does not answer" />
          <p className="muted">
            Start it with <code>npm start</code>. ({result.error})
          </p>
        </div>
      )}
    </main>
  );
}
