"use client";
import { listBrowserSessions, revokeBrowserSession, type BrowserSessionInfo } from "@/lib/api";
import { confirmThen } from "@/components/ui/use-action";
import { formatRelative } from "@/lib/format";
import { useAsync } from "@/components/ui/use-async";
import { EmptyState, StatusBadge } from "@/components/ui/states";
import { Loaded } from "@/components/ui/loaded";

/** "Chrome 131 on Linux" from a User-Agent, or the string itself when it does not say. */
function describeAgent(userAgent: string): string {
  if (!userAgent) return "unknown browser";
  const browser = /(Firefox|Edg|Chrome|Chromium|Safari)\/(\d+)/.exec(userAgent);
  const os = /(Windows|Mac OS X|Linux|Android|iPhone|iPad)/.exec(userAgent);
  if (!browser) return userAgent.slice(0, 80);
  const name = browser[1] === "Edg" ? "Edge" : browser[1];
  return `${name} ${browser[2]}${os ? ` on ${os[1] === "Mac OS X" ? "macOS" : os[1]}` : ""}`;
}

/** "in 11h", "in 40m", or the relative past for an expired one. */
function formatUntil(iso: string): string {
  const ms = Date.parse(iso) - Date.now();
  if (ms <= 0) return formatRelative(iso);
  const m = Math.round(ms / 60_000);
  return m < 60 ? `in ${m}m` : `in ${Math.round(m / 60)}h`;
}

function statusOf(session: BrowserSessionInfo): string {
  if (session.revokedAt) return "revoked";
  return Date.parse(session.expiresAt) <= Date.now() ? "expired" : "active";
}

/**
 * Where you are signed in: each sign-in is a browser session of its own (not your API token), with its own
 * expiry. Revoking one signs that browser out at once, its open connections included. An admin sees
 * everyone's.
 */
export function BrowserSessions({ isAdmin }: { isAdmin: boolean }) {
  const sessions = useAsync(listBrowserSessions, []);
  const revoke = (session: BrowserSessionInfo) =>
    confirmThen(
      session.current ? "Revoke this browser's session? You will be signed out here." : `Revoke ${session.userName}'s sign-in from ${describeAgent(session.userAgent)}?`,
      async () => void (await revokeBrowserSession(session.id)),
      async () => {
        if (session.current) window.location.assign("/login");
        else await sessions.reload();
      },
    );
  return (
    <section className="card" data-testid="browser-sessions">
      <div className="card-title">
        <h2>Browser sessions</h2>
        <span className="muted tiny">{isAdmin ? "Every sign-in on this runner." : "Where you are signed in."} Only these act as a person (caller browser); API tokens never do.</span>
      </div>
      <Loaded state={sessions} loading="Loading sign-ins…" empty={<EmptyState title="No browser sessions">Signing in starts one.</EmptyState>}>
        {(list) => (
          <table className="table compact" data-testid="browser-sessions-table">
            <thead>
              <tr>
                {isAdmin ? <th>User</th> : null}
                <th>Browser</th>
                <th>Signed in</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>Status</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((session) => (
                <tr key={session.id} data-testid="browser-session-row" data-current={session.current ? "true" : "false"}>
                  {isAdmin ? <td>{session.userName}</td> : null}
                  <td title={session.userAgent}>
                    {describeAgent(session.userAgent)} {session.current ? <span className="badge muted">this browser</span> : null}
                  </td>
                  <td className="muted">{formatRelative(session.createdAt)}</td>
                  <td className="muted">{session.lastUsedAt ? formatRelative(session.lastUsedAt) : "—"}</td>
                  <td className="muted">{formatUntil(session.expiresAt)}</td>
                  <td>
                    <StatusBadge value={statusOf(session)} />
                  </td>
                  <td>
                    {statusOf(session) === "active" ? (
                      <button className="btn small ghost danger" onClick={() => void revoke(session)} data-testid="revoke-browser-session">
                        Revoke
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
    </section>
  );
}
