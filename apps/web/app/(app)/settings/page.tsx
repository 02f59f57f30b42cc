import type { Metadata } from "next";
import { requireUser } from "@/lib/auth";
import { PolicyRules } from "@/components/settings/policy-rules";
import { UsersAndTokens } from "@/components/settings/users-and-tokens";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Settings" };

/** Who may do what: policy rules (everyone reads them, operators change them) and, for admins, users and tokens. */
export default async function SettingsPage() {
  const me = await requireUser("/settings");
  return (
    <main className="page">
      <div className="page-head">
        <h1>Settings</h1>
      </div>
      <PolicyRules canEdit={me.role === "admin" || me.role === "operator"} />
      {me.role === "admin" ? <UsersAndTokens /> : null}
    </main>
  );
}
