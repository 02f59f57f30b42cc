"use client";
import { useState } from "react";
import { signOut } from "@/lib/api";

export function SignOutButton() {
  const [busy, setBusy] = useState(false);
  return (
    <button
      className="btn ghost small"
      data-testid="sign-out"
      disabled={busy}
      onClick={() => {
        setBusy(true);
        void signOut()
          .catch(() => undefined)
          .finally(() => window.location.assign("/login"));
      }}
    >
      Sign out
    </button>
  );
}
