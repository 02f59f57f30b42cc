"use client";
import { useEffect, useState } from "react";
import { PortListResultSchema, type ListeningPort } from "@berth/protocol";

/** How often the list is read again while it is shown (a server started in the terminal appears within this). */
const REFRESH_MS = 3_000;

type State = { ports: ListeningPort[] | null; error: string | null };

/**
 * What listens inside the session's container (the agent reads /proc/net/tcp and tcp6), each with an Open
 * link to its preview at /sessions/<id>/ports/<port>/ on this origin (docs/api.md "Ports"). Refreshed every
 * few seconds while visible; hidden, it asks nothing.
 */
export function PortsPanel({ sessionId, visible }: { sessionId: string; visible: boolean }) {
  const [state, setState] = useState<State>({ ports: null, error: null });
  useEffect(() => {
    if (!visible) return;
    let stopped = false;
    const controller = new AbortController();
    const load = async () => {
      try {
        const response = await fetch(`/api/sessions/${encodeURIComponent(sessionId)}/ports`, {
          credentials: "same-origin",
          cache: "no-store",
          signal: controller.signal,
        });
        const body: unknown = await response.json().catch(() => null);
        if (stopped) return;
        if (!response.ok) {
          const message = (body as { error?: { message?: string } } | null)?.error?.message;
          return setState((old) => ({
            ports: old.ports,
            error: message ?? `The ports list failed with ${response.status}`,
          }));
        }
        const parsed = PortListResultSchema.safeParse(body);
        setState(
          parsed.success
            ? { ports: parsed.data.ports, error: null }
            : (old) => ({ ports: old.ports, error: "The runner sent a ports list this page does not read" }),
        );
      } catch (error) {
        if (!stopped && (error as Error).name !== "AbortError")
          setState((old) => ({ ports: old.ports, error: "The Berth server does not answer" }));
      }
    };
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => {
      stopped = true;
      controller.abort();
      clearInterval(timer);
    };
  }, [sessionId, visible]);

  return (
    <div className="ports-panel" data-testid="ports-panel">
      {state.error ? (
        <p className="muted" role="alert" data-testid="ports-error">
          {state.error}
        </p>
      ) : null}
      {state.ports === null ? (
        <p className="muted">Reading what listens in the container…</p>
      ) : state.ports.length === 0 ? (
        <p className="muted" data-testid="ports-empty">
          Nothing listens in the container. Start a server (e.g. <code>python3 -m http.server 8000</code> in the
          terminal) and it shows here.
        </p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Port</th>
              <th>Address</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {state.ports.map((entry) => (
              <tr key={entry.port} data-testid="port-row" data-port={entry.port}>
                <td className="mono">{entry.port}</td>
                <td className="mono muted">{entry.address}</td>
                <td>
                  <a
                    href={`/sessions/${encodeURIComponent(sessionId)}/ports/${entry.port}/`}
                    target="_blank"
                    rel="noopener noreferrer"
                    data-testid="port-open"
                  >
                    Open
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
