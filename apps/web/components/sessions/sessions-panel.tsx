"use client";
import { Link } from "@/components/ui/link";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { AUTONOMY_HELP, AUTONOMY_OPTIONS, NETWORK_OPTIONS, createSession, deleteSession, errorMessage, listSessions, type Autonomy, type Network, type Session } from "@/lib/api";
import { formatRelative } from "@/lib/format";
import { getSocket } from "@/lib/socket";
import { useAsync } from "@/components/ui/use-async";
import { EmptyState, ErrorState, Spinner, StatusBadge } from "@/components/ui/states";

export function SessionsPanel() {
  const router = useRouter();
  const sessions = useAsync(listSessions, []);
  const [name, setName] = useState("");
  const [autonomy, setAutonomy] = useState<Autonomy>("default");
  const [network, setNetwork] = useState<Network>("none");
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<string | null>(null);

  useEffect(() => {
    const socket = getSocket();
    const onStatus = (event: { sessionId: string; status: string; terminationCause?: string | null }) =>
      sessions.setData((old) => old?.map((s) => (s.id === event.sessionId ? { ...s, status: event.status, terminationCause: event.terminationCause ?? s.terminationCause } : s)));
    socket.on("session:status", onStatus);
    // Status changes of sessions not joined (idle timeouts, crashes) arrive by polling.
    const timer = setInterval(() => void sessions.reload(), 10_000);
    return () => {
      socket.off("session:status", onStatus);
      clearInterval(timer);
    };
  }, []);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setCreating(true);
    setCreateError(null);
    try {
      const session = await createSession({ ...(name.trim() ? { name: name.trim() } : {}), autonomy, network });
      router.push(`/sessions/${session.id}`);
    } catch (caught) {
      setCreateError(errorMessage(caught));
      setCreating(false);
    }
  };

  const remove = async (session: Session) => {
    if (!window.confirm(`Delete session "${session.name}"? Its container and workspace volume are removed.`)) return;
    sessions.setData((old) => old?.map((s) => (s.id === session.id ? { ...s, status: "deleting" } : s)));
    try {
      await deleteSession(session.id);
    } catch (caught) {
      window.alert(errorMessage(caught));
    }
    await sessions.reload();
  };

  const list = sessions.data?.filter((s) => s.status !== "deleted") ?? [];
  return (
    <>
      <div className="page-head">
        <h1>Sessions</h1>
      </div>
      <form className="card create-session" onSubmit={(event) => void create(event)} data-testid="create-session-form">
        <label className="field grow">
          <span>Name</span>
          <input value={name} onChange={(event) => setName(event.target.value)} placeholder="my-workspace" data-testid="session-name" maxLength={80} />
        </label>
        <label className="field">
          <span>Autonomy</span>
          <select value={autonomy} onChange={(event) => setAutonomy(event.target.value as Autonomy)} data-testid="session-autonomy">
            {AUTONOMY_OPTIONS.map((option) => (
              <option key={option} value={option} title={AUTONOMY_HELP[option]}>
                {option}
              </option>
            ))}
          </select>
          <span className="muted tiny autonomy-help" data-testid="session-autonomy-help">
            {AUTONOMY_HELP[autonomy]}
          </span>
        </label>
        <label className="field">
          <span>Network</span>
          <select value={network} onChange={(event) => setNetwork(event.target.value as Network)} data-testid="session-network">
            {NETWORK_OPTIONS.map((option) => (
              <option key={option}>{option}</option>
            ))}
          </select>
        </label>
        <button className="btn primary" type="submit" disabled={creating} data-testid="create-session">
          {creating ? "Starting…" : "New session"}
        </button>
        {createError ? <ErrorState message={createError} /> : null}
      </form>
      {sessions.error && !sessions.data ? (
        <ErrorState message={sessions.error} onRetry={() => void sessions.reload()} />
      ) : !sessions.data ? (
        <Spinner label="Loading sessions…" />
      ) : list.length === 0 ? (
        <EmptyState title="No sessions yet" testId="sessions-empty">
          Create one above: it gets its own locked-down container and a workspace volume.
        </EmptyState>
      ) : (
        <div className="card flush">
          <table className="table" data-testid="sessions-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Status</th>
                <th>Autonomy</th>
                <th>Network</th>
                <th>Created</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((session) => (
                <tr key={session.id} data-testid="session-row" data-session-id={session.id}>
                  <td>
                    <Link href={`/sessions/${session.id}`} data-testid="open-session">
                      {session.name || session.id}
                    </Link>
                    <div className="muted mono tiny">{session.id}</div>
                  </td>
                  <td>
                    <StatusBadge value={session.status} testId="session-status" />
                    {session.terminationCause ? (
                      <span className="muted tiny" data-testid="termination-cause">
                        {" "}
                        {session.terminationCause.replaceAll("_", " ")}
                      </span>
                    ) : null}
                  </td>
                  <td>{session.autonomy}</td>
                  <td>{session.network}</td>
                  <td className="muted">{formatRelative(session.createdAt)}</td>
                  <td className="actions">
                    <button className="btn ghost small danger" onClick={() => void remove(session)} data-testid="delete-session">
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
