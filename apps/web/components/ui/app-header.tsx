import { Link } from "@/components/ui/link";
import { currentUser } from "@/lib/auth";
import { NavLinks } from "./nav-links";
import { SignOutButton } from "./sign-out-button";

export async function AppHeader() {
  const user = await currentUser();
  return (
    <header className="topbar">
      <Link className="brand" href="/">
        ⚓ Berth
      </Link>
      {user.kind === "ok" ? <NavLinks /> : null}
      <div className="spacer" />
      {user.kind === "ok" ? (
        <div className="row" data-testid="current-user">
          <span className="muted">{user.me.name}</span>
          <span className="badge muted">{user.me.role}</span>
          <SignOutButton />
        </div>
      ) : user.kind === "down" ? (
        <span className="badge bad">runner down</span>
      ) : (
        <Link className="btn small" href="/login" data-testid="sign-in-link">
          Sign in
        </Link>
      )}
    </header>
  );
}
