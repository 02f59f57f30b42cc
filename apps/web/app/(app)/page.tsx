import { fetchHealth } from "@/lib/runner";

export const dynamic = "force-dynamic";

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
  const result = await fetchHealth();
  return (
    <main className="page">
      <h1>Runner health</h1>
      {result.reachable ? (
        <div className="card" style={{ display: "grid", gap: 10 }}>
          <Status ok={result.health.ok} label="Runner" detail={result.health.ok ? "ready" : "degraded"} />
          <Status ok={result.health.docker.ok} label="Docker" detail={result.health.docker.version ?? result.health.docker.error ?? ""} />
          <Status ok={result.health.db.ok} label="Database" detail={result.health.db.ok ? `${result.health.db.latencyMs} ms` : (result.health.db.error ?? "")} />
        </div>
      ) : (
        <div className="card" data-testid="runner-down">
          <Status ok={false} label="Runner" detail="does not answer" />
          <p className="muted">Start it with <code>npm start</code>. ({result.error})</p>
        </div>
      )}
    </main>
  );
}
