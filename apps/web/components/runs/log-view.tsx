"use client";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { findMatches, lineFromHash, lineIndexOf, parseLog, visibleRows, type LogChunk } from "@/lib/log-lines";
import { formatLogTime, formatSinceStart, lineTimes, type LogTime } from "@/lib/log-times";
import { formatBytes } from "@/lib/format";
import { styleOf } from "./run-output";
import styles from "./log-view.module.css";

/** Each row is one line high (no wrapping), so the window to render is arithmetic. */
const ROW = 20;
const HEIGHT = 480;
/** Rows rendered above and below the window, so a fast scroll does not show blanks. */
const OVERSCAN = 30;

/**
 * What an ended run's empty log says: a run that printed bytes had its log removed (past BERTH_LOG_RETENTION_DAYS,
 * or its session was deleted); the run's row and receipt keep how much it printed.
 */
export function endedLogEmpty(printedBytes: number): string {
  return printedBytes > 0 ? `Log removed: this run printed ${formatBytes(printedBytes)}, no longer kept (past the log retention, or its session was deleted)` : "No output";
}

export interface LogDownload {
  /** A URL that serves the raw log; without it the text shown is downloaded as it is. */
  href?: string;
  name: string;
}

/**
 * One log for a run, like a GitHub Actions step: stdout and stderr in the order written (stderr marked),
 * ANSI colours, `\r` frames collapsed, line numbers that are permalinks (`#L120`), search with next and
 * previous, `::group::` sections folded, following the tail while the run is live, raw download, and a
 * Timestamps toggle (when `times` are known) that prefixes each line with the time it was written.
 * Virtualised: only the rows in view are in the DOM, so a 100k-line log opens and scrolls like a short one.
 */
export function LogView({
  chunks,
  live,
  download,
  empty = "No output",
  testId = "log-view",
  times,
  startedAt,
}: {
  chunks: LogChunk[];
  live: boolean;
  download: LogDownload;
  empty?: string;
  testId?: string;
  /** When the chunks' bytes arrived; without them there is no Timestamps toggle. */
  times?: readonly LogTime[];
  /** The run's start (epoch ms), for a timestamp's hover text. */
  startedAt?: number;
}) {
  const log = useMemo(() => parseLog(chunks), [chunks]);
  const [showTimes, setShowTimes] = useState(false);
  // Walked only while shown: one pass over the text (lib/log-times).
  const stamps = useMemo(() => (showTimes && times ? lineTimes(chunks, times) : []), [showTimes, chunks, times]);
  // Groups start folded (as in GitHub Actions); the ones opened are remembered by index.
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const collapsed = useMemo(() => new Set(log.groups.map((_, i) => i).filter((i) => !open.has(i))), [log.groups, open]);
  const rows = useMemo(() => visibleRows(log, collapsed), [log, collapsed]);
  const viewport = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [follow, setFollow] = useState(live);
  const [selected, setSelected] = useState<number | null>(null);
  const [query, setQuery] = useState("");
  const [match, setMatch] = useState(0);
  /** A line to bring into view once the rows include it (after a group opens). */
  const pending = useRef<number | null>(null);
  const [scrollTarget, setScrollTarget] = useState(0);

  const matches = useMemo(() => findMatches(log, query), [log, query]);

  /** Opens the line's group if needed, then scrolls it to a third of the way down. */
  const reveal = useCallback(
    (index: number) => {
      const line = log.lines[index];
      if (!line) return;
      pending.current = index;
      setFollow(false);
      if (line.group !== undefined && !line.header && !open.has(line.group))
        setOpen((old) => new Set(old).add(line.group!));
      else setScrollTarget((n) => n + 1);
    },
    [log, open],
  );

  useEffect(() => {
    const index = pending.current;
    const el = viewport.current;
    if (index === null || !el) return;
    const row = rows.indexOf(index);
    if (row < 0) return;
    pending.current = null;
    el.scrollTop = Math.max(0, row * ROW - HEIGHT / 3);
    setScrollTop(el.scrollTop);
  }, [rows, scrollTarget]);

  // Permalinks: #L<n> selects line n and scrolls to it, on load (once the line has arrived) and on hash change.
  const hashDone = useRef(false);
  useEffect(() => {
    const go = () => {
      const n = lineFromHash(window.location.hash);
      if (n === null) return false;
      const index = lineIndexOf(log, n);
      if (index < 0) return false;
      setSelected(log.lines[index]!.number);
      reveal(index);
      return true;
    };
    if (!hashDone.current && go()) hashDone.current = true;
    const onHash = () => void go();
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, [log, reveal]);

  // Follow the tail while the run is live and the reader has not scrolled up.
  useEffect(() => {
    if (!live) setFollow(false);
  }, [live]);
  useEffect(() => {
    const el = viewport.current;
    if (el && follow) {
      el.scrollTop = el.scrollHeight;
      setScrollTop(el.scrollTop);
    }
  }, [rows, follow]);

  const step = (delta: number) => {
    if (matches.length === 0) return;
    const next = (match + delta + matches.length) % matches.length;
    setMatch(next);
    reveal(matches[next]!);
  };

  const rawHref = download.href;
  const downloadText = () => {
    const url = URL.createObjectURL(new Blob([chunks.map((c) => c.text).join("")], { type: "text/plain" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = download.name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + HEIGHT) / ROW) + OVERSCAN);
  const current = matches.length > 0 ? matches[Math.min(match, matches.length - 1)] : undefined;
  const hits = useMemo(() => new Set(matches), [matches]);

  return (
    <div className={styles.box} data-testid={testId}>
      <div className={styles.bar}>
        <input
          className={styles.search}
          placeholder="Search the log"
          value={query}
          onChange={(event) => {
            setQuery(event.target.value);
            setMatch(0);
          }}
          onKeyDown={(event) => {
            if (event.key === "Enter") step(event.shiftKey ? -1 : 1);
          }}
          data-testid="log-search"
          aria-label="Search the log"
        />
        <span className="muted tiny" data-testid="log-search-count">
          {query
            ? matches.length
              ? `${Math.min(match, matches.length - 1) + 1} of ${matches.length}`
              : "no match"
            : `${log.lines.length} lines`}
        </span>
        <button
          className="btn small"
          onClick={() => step(-1)}
          disabled={matches.length === 0}
          data-testid="log-search-prev"
          aria-label="Previous match"
        >
          ↑
        </button>
        <button
          className="btn small"
          onClick={() => step(1)}
          disabled={matches.length === 0}
          data-testid="log-search-next"
          aria-label="Next match"
        >
          ↓
        </button>
        <div className="spacer" />
        {times && times.length > 0 ? (
          <Toggle label="Timestamps" checked={showTimes} onChange={setShowTimes} testId="log-timestamps" />
        ) : null}
        {live ? <Toggle label="Follow" checked={follow} onChange={setFollow} testId="log-follow" /> : null}
        {rawHref ? (
          <a className="btn small" href={rawHref} download={download.name} data-testid="log-download">
            Download raw
          </a>
        ) : (
          <button className="btn small" onClick={downloadText} data-testid="log-download">
            Download raw
          </button>
        )}
      </div>
      <div
        ref={viewport}
        className={styles.viewport}
        style={{ height: rows.length ? Math.min(HEIGHT, rows.length * ROW + 16) : undefined }}
        onScroll={(event) => {
          const el = event.currentTarget;
          // Re-render only every 10 rows of scrolling: the overscan (30 rows) covers the rest.
          if (
            Math.abs(el.scrollTop - scrollTop) >= ROW * 10 ||
            el.scrollTop === 0 ||
            el.scrollTop + el.clientHeight >= el.scrollHeight - 1
          )
            setScrollTop(el.scrollTop);
          if (live) setFollow(el.scrollHeight - el.scrollTop - el.clientHeight < ROW);
        }}
        data-testid="log-viewport"
      >
        {rows.length === 0 ? (
          <div className={`muted ${styles.empty}`}>{empty}</div>
        ) : (
          <div className={styles.canvas} style={{ height: rows.length * ROW }}>
            {rows.slice(first, last).map((index, k) => {
              const line = log.lines[index]!;
              const isOpen = line.header ? open.has(line.group!) : false;
              const classes = [
                styles.row,
                line.stderr ? styles.stderr : "",
                line.number === selected ? styles.selected : "",
                index === current ? styles.current : hits.has(index) ? styles.hit : "",
              ].join(" ");
              return (
                <div
                  key={line.number}
                  className={classes}
                  style={{ top: (first + k) * ROW }}
                  data-testid="log-line"
                  data-line={line.number}
                  data-stream={line.stderr ? "stderr" : "stdout"}
                  data-selected={line.number === selected ? "true" : undefined}
                  data-current={index === current ? "true" : undefined}
                >
                  <a
                    className={styles.number}
                    href={`#L${line.number}`}
                    onClick={(event) => {
                      event.preventDefault();
                      window.history.replaceState(null, "", `#L${line.number}`);
                      setSelected(line.number);
                    }}
                  >
                    {line.number}
                  </a>
                  {showTimes ? <LineTime at={stamps[line.number - 1]} startedAt={startedAt} /> : null}
                  {line.header ? (
                    <button
                      className={styles.fold}
                      aria-expanded={isOpen}
                      onClick={() =>
                        setOpen((old) => {
                          const next = new Set(old);
                          if (next.has(line.group!)) next.delete(line.group!);
                          else next.add(line.group!);
                          return next;
                        })
                      }
                      data-testid="log-group"
                    >
                      {isOpen ? "▾" : "▸"} {log.groups[line.group!]!.name}
                    </button>
                  ) : (
                    <span className={styles.text}>
                      {line.spans.map((span, j) => (
                        <span
                          key={j}
                          className={span.stream === "stderr" && !span.style.fg ? styles.stderrText : undefined}
                          style={styleOf(span)}
                        >
                          {span.text}
                        </span>
                      ))}
                    </span>
                  )}
                </div>
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}

/** A line's time, `HH:MM:SS.mmm`; hovering says how long after the run's start and the full date. */
function LineTime({ at, startedAt }: { at: number | undefined; startedAt: number | undefined }) {
  if (at === undefined) return <span className={styles.time} data-testid="log-time" />;
  const title = `${startedAt !== undefined ? `${formatSinceStart(at, startedAt)} after the run started, ` : ""}${new Date(at).toISOString()}`;
  return (
    <time className={styles.time} dateTime={new Date(at).toISOString()} title={title} data-testid="log-time">
      {formatLogTime(at)}
    </time>
  );
}

/** A checkbox in the log's toolbar (Timestamps, Follow). */
function Toggle({ label, checked, onChange, testId }: { label: string; checked: boolean; onChange: (on: boolean) => void; testId: string }) {
  return (
    <label className="tiny" style={{ whiteSpace: "nowrap", display: "inline-flex", alignItems: "center", gap: 6 }}>
      {/* The global input style (padding, min-height) is for text fields; a checkbox sits on the label's line. */}
      <input
        type="checkbox"
        checked={checked}
        onChange={(event) => onChange(event.target.checked)}
        data-testid={testId}
        style={{ minHeight: 0, padding: 0, margin: 0 }}
      />
      {label}
    </label>
  );
}
