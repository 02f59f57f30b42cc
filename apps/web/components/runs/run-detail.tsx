"use client";
import { Link } from "@/components/ui/link";
import { useCallback, useEffect, useRef, useState } from "react";
import { callerLabel, errorMessage, getRun, getRunLogs, runLogDownloadUrl, shareReceipt, unshareReceipt, verifyReceipt, type LogStream, type Verification } from "@/lib/api";
import { formatDuration, formatTime, shortId } from "@/lib/format";
import { getSocket, onEveryConnect } from "@/lib/socket";
import { useAsync } from "@/components/ui/use-async";
import { useAction } from "@/components/ui/use-action";
import { CopyField } from "@/components/ui/copy-field";
import { EmptyState, ErrorState, Spinner, StatusBadge } from "@/components/ui/states";
import { ReceiptView } from "@/components/receipts/receipt-view";
import { ResultImages } from "@/components/runs/result-images";

const PAGE_BYTES = 65_536;

/** One stream of a run's log, read page by page by byte offset; follows the end while the run is live. */
function LogViewer({ runId, stream, live }: { runId: string; stream: LogStream; live: boolean }) {
  const [content, setContent] = useState("");
  const [next, setNext] = useState(0);
  const [done, setDone] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const nextRef = useRef(0);

  const loadMore = useCallback(async () => {
    setLoading(true);
    try {
      const from = nextRef.current;
      const page = await getRunLogs(runId, stream, from, PAGE_BYTES);
      if (nextRef.current !== from) return;
      setContent((old) => old + page.content);
      nextRef.current = page.nextOffset;
      setNext(page.nextOffset);
      setDone(page.done && page.content.length < PAGE_BYTES);
      setError(null);
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setLoading(false);
    }
  }, [runId, stream]);

  useEffect(() => {
    setContent("");
    nextRef.current = 0;
    setNext(0);
    setDone(false);
    void loadMore();
  }, [loadMore]);

  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => void loadMore(), 1500);
    return () => clearInterval(timer);
  }, [live, loadMore]);


  return (
    <div className="log-box">
      <pre className="output" data-testid={`log-${stream}`}>
        {content || <span className="muted">{loading ? "Loading…" : `no ${stream}`}</span>}
      </pre>
      <div className="row pad tiny">
        <span className="muted">
          bytes 0–{next}
          {done ? " (end)" : ""}
        </span>
        <div className="spacer" />
        {error ? <span className="bad-text">{error}</span> : null}
        {!done ? (
          <button className="btn small" onClick={() => void loadMore()} disabled={loading} data-testid={`log-more-${stream}`}>
            {loading ? "Loading…" : "Load more"}
          </button>
        ) : null}
        <a className="btn small" href={runLogDownloadUrl(runId, stream)} download={`${runId}-${stream}.log`} data-testid={`log-download-${stream}`}>
          Download
        </a>
      </div>
    </div>
  );
}

function ShareBox({ receiptId }: { receiptId: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const action = useAction();

  const share = () =>
    action.run(async () => {
      const link = await shareReceipt(receiptId);
      // The runner may answer with its own origin or a path: the page lives on this origin.
      setUrl(`${window.location.origin}/share/${encodeURIComponent(link.token)}`);
    });
  const revoke = () =>
    action.run(async () => {
      await unshareReceipt(receiptId);
      setUrl(null);
    });
  return (
    <div className="stack">
      {url ? (
        <CopyField value={url} testId="share-url">
          <button className="btn small ghost danger" onClick={() => void revoke()} disabled={action.busy} data-testid="unshare">
            Revoke
          </button>
        </CopyField>
      ) : (
        <div className="row">
          <button className="btn primary small" onClick={() => void share()} disabled={action.busy} data-testid="share-receipt">
            {action.busy ? "Creating link…" : "Share receipt"}
          </button>
          <span className="muted tiny">Anyone with the link sees this receipt, its verification and the logs — nothing else of the session.</span>
        </div>
      )}
      {action.error ? <ErrorState message={action.error} /> : null}
    </div>
  );
}

export function RunDetailView({ runId }: { runId: string }) {
  const detail = useAsync(() => getRun(runId), [runId]);
  const [stream, setStream] = useState<LogStream>("stdout");
  const [verification, setVerification] = useState<Verification | null>(null);
  const receipt = detail.data?.receipt ?? null;
  const running = detail.data?.run.status === "running";

  useEffect(() => {
    if (!receipt) return;
    setVerification(null);
    verifyReceipt(receipt)
      .then(setVerification)
      .catch((caught: unknown) => setVerification({ valid: false, reason: `could not verify: ${errorMessage(caught)}` }));
  }, [receipt]);

  useEffect(() => {
    const socket = getSocket();
    const onStatus = (event: { runId: string }) => {
      if (event.runId === runId) void detail.reload();
    };
    socket.on("run:status", onStatus);
    const stop = onEveryConnect(socket, () => socket.emit("runs:subscribe"));
    return () => {
      socket.off("run:status", onStatus);
      stop();
    };
  }, [runId]);

  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void detail.reload(), 2000);
    return () => clearInterval(timer);
  }, [running]);

  if (detail.error && !detail.data) return <ErrorState message={detail.error} onRetry={() => void detail.reload()} />;
  if (!detail.data) return <Spinner label="Loading run…" />;
  const { run, toolCalls } = detail.data;

  return (
    <>
      <div className="page-head">
        <Link href="/runs" className="muted">
          Runs
        </Link>
        <span className="muted">/</span>
        <h1 className="mono" data-testid="run-id">
          {run.id}
        </h1>
      </div>
      <div className="card">
        <div className="row wrap" style={{ marginBottom: 12 }}>
          <StatusBadge value={run.status} testId="run-detail-status" />
          {run.outcome ? <StatusBadge value={run.outcome} testId="run-detail-outcome" /> : null}
          <span className="muted">{run.tool}</span>
        </div>
        <dl className="kv">
          <dt>Session</dt>
          <dd>
            <Link href={`/sessions/${run.sessionId}`}>{shortId(run.sessionId)}</Link>
          </dd>
          <dt>Started by</dt>
          <dd data-testid="run-detail-caller">{callerLabel(run.caller)}</dd>
          <dt>Exit code</dt>
          <dd>{run.exitCode ?? "—"}</dd>
          <dt>Started</dt>
          <dd>{formatTime(run.startedAt)}</dd>
          <dt>Ended</dt>
          <dd>{formatTime(run.endedAt)}</dd>
          <dt>Duration</dt>
          <dd>{formatDuration(run.durationMs)}</dd>
        </dl>
        <ResultImages details={(run as { details?: unknown }).details} />
      </div>
      <div className="card">
        <div className="card-title">
          <h2>Logs</h2>
          <div className="segmented">
            <button className={stream === "stdout" ? "active" : ""} onClick={() => setStream("stdout")} data-testid="logs-stdout">
              stdout
            </button>
            <button className={stream === "stderr" ? "active" : ""} onClick={() => setStream("stderr")} data-testid="logs-stderr">
              stderr
            </button>
          </div>
        </div>
        <LogViewer key={stream} runId={run.id} stream={stream} live={running} />
      </div>
      <div className="card">
        <div className="card-title">
          <h2>Receipt</h2>
        </div>
        {receipt ? (
          <div className="stack">
            <ReceiptView receipt={receipt} verification={verification} />
            <ShareBox receiptId={receipt.body.id} />
          </div>
        ) : (
          <EmptyState title={running ? "Sealed when the run ends" : "No receipt"} testId="no-receipt">
            {running ? "The runner signs a receipt as soon as the run finishes." : "This run has no sealed receipt."}
          </EmptyState>
        )}
      </div>
      <div className="card flush">
        <div className="card-title pad" style={{ padding: "14px 20px 4px" }}>
          <h2>Tool calls</h2>
        </div>
        {toolCalls.length === 0 ? (
          <div className="pad">
            <EmptyState title="No tool calls recorded" />
          </div>
        ) : (
          <table className="table compact" data-testid="tool-calls">
            <thead>
              <tr>
                <th>Tool</th>
                <th>Caller</th>
                <th>Class</th>
                <th>Verdict</th>
                <th>Result</th>
                <th>Duration</th>
                <th>When</th>
              </tr>
            </thead>
            <tbody>
              {toolCalls.map((call) => (
                <tr key={call.id} data-testid="tool-call-row">
                  <td className="mono">{call.tool}</td>
                  <td>{call.caller ?? "—"}</td>
                  <td>{call.actionClass ?? "—"}</td>
                  <td>
                    {call.verdict ? <StatusBadge value={call.verdict} /> : "—"}
                    {call.approvalId ? <span className="muted tiny"> {shortId(call.approvalId)}</span> : null}
                  </td>
                  <td>{call.ok === true ? <span className="badge ok">ok</span> : call.ok === false ? <span className="badge bad">{call.errorCode ?? "error"}</span> : "—"}</td>
                  <td>{formatDuration(call.durationMs)}</td>
                  <td className="muted">{formatTime(call.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
