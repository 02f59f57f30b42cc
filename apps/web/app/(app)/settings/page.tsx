import type { Metadata } from "next";
import { requireUser } from "@/lib/auth";
import { BrowserSessions } from "@/components/settings/browser-sessions";
import { McpServers } from "@/components/settings/mcp-servers";
import { PolicyRules } from "@/components/settings/policy-rules";
import { UsersAndTokens } from "@/components/settings/users-and-tokens";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Settings" };

/** Who may do what: your browser sign-ins, policy rules (everyone reads them, operators change them), MCP servers, and, for admins, users and tokens. */
export default async function SettingsPage() {
  const me = await requireUser("/settings");
  const operator = me.role === "admin" || me.role === "operator";
  return (
    <main className="page">
      <div className="page-head">
        <h1>Settings</h1>
      </div>
      <BrowserSessions isAdmin={me.role === "admin"} />
      <PolicyRules canEdit={operator} />
      <McpServers canManageGlobal={operator} userId={me.userId} />
      {me.role === "admin" ? <UsersAndTokens meId={me.userId} /> : null}
    </main>
  );
}
