"use client";
import { useState, type FormEvent } from "react";
import { errorMessage, signIn } from "@/lib/api";

export function LoginForm({ next }: { next: string }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(token);
      window.location.assign(next);
    } catch (caught) {
      setError(errorMessage(caught));
      setBusy(false);
    }
  };

  return (
    <form className="form" onSubmit={(event) => void submit(event)}>
      <label className="field">
        <span>Token</span>
        <input
          type="password"
          autoFocus
          autoComplete="current-password"
          name="token"
          value={token}
          onChange={(event) => setToken(event.target.value)}
          placeholder="berth_…"
          data-testid="login-token"
        />
      </label>
      {error ? (
        <div className="state error" role="alert" data-testid="login-error">
          ⚠ {error}
        </div>
      ) : null}
      <button className="btn primary" type="submit" disabled={busy || !token.trim()} data-testid="login-submit">
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
