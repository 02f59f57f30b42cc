"use client";
import { forwardRef, useImperativeHandle, useMemo, useRef, useState, type FormEvent } from "react";
import { GrepDetailsSchema, type GrepMatch } from "@berth/protocol";
import { callTool, errorMessage } from "@/lib/api";
import styles from "./files.module.css";

const MAX_RESULTS = 2000;

export type SearchPanelHandle = { focus: () => void };

/**
 * Search across files (Ctrl/Cmd+Shift+F), backed by the grep tool (ripgrep in the container): results
 * grouped by file, the matching text highlighted, a click opens the file at that line. Regex, case and a
 * file-name glob filter map onto grep's own arguments (`literal`, `caseInsensitive`, `include`).
 */
export const SearchPanel = forwardRef<
  SearchPanelHandle,
  { sessionId: string; onOpenAt: (path: string, line: number) => void }
>(function SearchPanel({ sessionId, onOpenAt }, ref) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [pattern, setPattern] = useState("");
  const [regex, setRegex] = useState(false);
  const [matchCase, setMatchCase] = useState(false);
  const [include, setInclude] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<{
    matches: GrepMatch[];
    filesMatched: number;
    totalMatches: number;
    truncated: boolean;
    asked: { pattern: string; regex: boolean; matchCase: boolean };
  } | null>(null);
  const seq = useRef(0);

  useImperativeHandle(ref, () => ({
    focus: () => {
      inputRef.current?.focus();
      inputRef.current?.select();
    },
  }));

  const search = async (event?: FormEvent) => {
    event?.preventDefault();
    if (!pattern) return;
    const mine = ++seq.current;
    setBusy(true);
    setError(null);
    try {
      const args = {
        pattern,
        literal: !regex,
        caseInsensitive: !matchCase,
        maxResults: MAX_RESULTS,
        ...(include.trim() ? { include: include.trim() } : {}),
      };
      const answer = await callTool(sessionId, "grep", args);
      if (mine !== seq.current) return;
      if (!answer.ok) throw new Error(answer.error?.message ?? answer.output);
      const parsed = GrepDetailsSchema.safeParse(answer.details);
      if (!parsed.success)
        throw new Error(`grep answered an unexpected shape: ${parsed.error.issues[0]?.message ?? "invalid"}`);
      setResult({ ...parsed.data, asked: { pattern, regex, matchCase } });
    } catch (caught) {
      if (mine === seq.current) setError(errorMessage(caught));
    } finally {
      if (mine === seq.current) setBusy(false);
    }
  };

  const grouped = useMemo(() => {
    const byFile = new Map<string, GrepMatch[]>();
    for (const match of result?.matches ?? []) {
      if (match.isContext) continue;
      const list = byFile.get(match.file) ?? [];
      list.push(match);
      byFile.set(match.file, list);
    }
    return [...byFile];
  }, [result]);

  const highlighter = useMemo(() => (result ? matcherFor(result.asked) : null), [result]);

  return (
    <div className={styles.search} data-testid="search-panel">
      <form className={styles.searchForm} onSubmit={(event) => void search(event)}>
        <input
          ref={inputRef}
          type="text"
          value={pattern}
          onChange={(event) => setPattern(event.target.value)}
          placeholder="Search in files (Enter)"
          aria-label="Search pattern"
          data-testid="search-input"
        />
        <input
          type="text"
          value={include}
          onChange={(event) => setInclude(event.target.value)}
          placeholder="files to include, e.g. *.py"
          aria-label="Files to include (glob)"
          data-testid="search-include"
        />
        <div className={styles.searchFlags}>
          <Flag title="Regular expression (ripgrep syntax)" label=".* regex" checked={regex} onChange={setRegex} testId="search-regex" />
          <Flag title="Match case" label="Aa case" checked={matchCase} onChange={setMatchCase} testId="search-case" />
          <span className="spacer" />
          <button className="btn small" type="submit" disabled={!pattern || busy} data-testid="search-go">
            {busy ? "Searching…" : "Search"}
          </button>
        </div>
      </form>
      <div className={styles.results} data-testid="search-results">
        {error ? (
          <div className="tiny bad-text pad" role="alert" data-testid="search-error">
            {error}
          </div>
        ) : result ? (
          <>
            <div className="muted tiny pad" data-testid="search-summary">
              {result.totalMatches.toLocaleString()} match{result.totalMatches === 1 ? "" : "es"} in{" "}
              {result.filesMatched.toLocaleString()} file{result.filesMatched === 1 ? "" : "s"}
              {result.truncated ? ` (first ${MAX_RESULTS.toLocaleString()} shown)` : ""}
            </div>
            {grouped.map(([file, matches]) => (
              <div key={file}>
                <div className={styles.resultFile} title={file}>
                  {file} <span className="muted">({matches.length})</span>
                </div>
                {matches.map((match) => (
                  <button
                    key={`${file}:${match.line}`}
                    className={styles.resultLine}
                    onClick={() => onOpenAt(file, match.line)}
                    data-testid="search-result"
                    data-path={file}
                    data-line={match.line}
                    title={`${file}:${match.line}`}
                  >
                    <span className={styles.lineNo}>{match.line}</span>
                    <span>{highlighter ? marked(match.content.trimStart(), highlighter) : match.content}</span>
                  </button>
                ))}
              </div>
            ))}
          </>
        ) : (
          <div className="muted tiny pad">Type a pattern and press Enter.</div>
        )}
      </div>
    </div>
  );
});

/** One of the search's switches: a checkbox with its label. */
function Flag({ title, label, checked, onChange, testId }: { title: string; label: string; checked: boolean; onChange: (checked: boolean) => void; testId: string }) {
  return (
    <label title={title}>
      <input type="checkbox" checked={checked} onChange={(event) => onChange(event.target.checked)} data-testid={testId} /> {label}
    </label>
  );
}

/** A global RegExp for highlighting what grep matched (ripgrep syntax is close enough to JS for marking). */
function matcherFor(asked: { pattern: string; regex: boolean; matchCase: boolean }): RegExp | null {
  const source = asked.regex ? asked.pattern : asked.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  try {
    return new RegExp(source, asked.matchCase ? "g" : "gi");
  } catch {
    return null;
  }
}

function marked(text: string, matcher: RegExp) {
  const parts: React.ReactNode[] = [];
  let last = 0;
  matcher.lastIndex = 0;
  for (const hit of text.matchAll(matcher)) {
    if (hit[0] === "") break;
    const at = hit.index;
    if (at > last) parts.push(text.slice(last, at));
    parts.push(
      <mark key={at} className={styles.match} data-testid="search-hit">
        {hit[0]}
      </mark>,
    );
    last = at + hit[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}
