import type { Metadata } from "next";
import { Link } from "@/components/ui/link";
import { redirect } from "next/navigation";
import { currentUser } from "@/lib/auth";
import { fetchHealth } from "@/lib/runner";
import { LoginForm } from "./login-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  const back = next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
  const [health, user] = await Promise.all([fetchHealth(), currentUser()]);
  if (user.kind === "ok") redirect(back);
  return (
    <div className="app-shell">
      <header className="topbar">
        <Link className="brand" href="/">
          ⚓ Berth
        </Link>
      </header>
      <main className="page narrow">
        <div className="card login">
          <h1>Sign in</h1>
          <p className="muted">
            Paste an API token. The admin token is printed when the runner starts (or set BERTH_ADMIN_TOKEN); admins mint more with <code>POST /api/tokens</code>. Signing in starts a
            browser session of its own (the token is not kept): Settings lists your sessions, and signing out ends it.
          </p>
          {health.reachable ? null : (
            <div className="state error" data-testid="runner-down">
              ⚠ The runner does not answer ({health.error}). Start it with <code>npm start</code>.
            </div>
          )}
          <LoginForm next={back} />
        </div>
      </main>
    </div>
  );
}
