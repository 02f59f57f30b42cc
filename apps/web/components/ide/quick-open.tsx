"use client";
import { useEffect, useMemo, useRef, useState } from "react";
import { rankFuzzy, type FuzzyMatch } from "@/lib/fuzzy-match";
import styles from "./files.module.css";

/** One of Berth's own commands in the palette (F1 / Ctrl+Shift+P). */
export type PaletteCommand = { id: string; title: string; keys?: string; enabled?: boolean; run: () => void };

/**
 * Quick open (Ctrl/Cmd+P) and the command palette in one box, as in VS Code: a query starting with `>`
 * lists commands, anything else ranks the file list by fuzzy name (lib/fuzzy-match.ts). Arrow keys
 * move, Enter opens, Escape closes.
 */
export function QuickOpen({
  files,
  commands,
  initial,
  onOpen,
  onClose,
}: {
  files: readonly string[];
  commands: readonly PaletteCommand[];
  initial: "" | ">";
  onOpen: (path: string) => void;
  onClose: () => void;
}) {
  const [query, setQuery] = useState<string>(initial);
  const [selected, setSelected] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);
  const commandMode = query.startsWith(">");
  const fileMatches = useMemo<FuzzyMatch[]>(
    () => (commandMode ? [] : rankFuzzy(query.trim(), files, 50)),
    [commandMode, query, files],
  );
  const commandMatches = useMemo(() => {
    if (!commandMode) return [];
    const q = query.slice(1).trim();
    return commands
      .filter((c) => c.enabled !== false)
      .map((command) => ({ command, match: rankFuzzy(q, [command.title], 1)[0] }))
      .filter((c) => !!c.match)
      .sort((a, b) => (q ? b.match!.score - a.match!.score : 0));
  }, [commandMode, query, commands]);
  const count = commandMode ? commandMatches.length : fileMatches.length;

  useEffect(() => setSelected(0), [query]);
  useEffect(() => {
    listRef.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: "nearest" });
  }, [selected]);

  const choose = (index: number) => {
    if (commandMode) {
      const command = commandMatches[index]?.command;
      if (!command) return;
      onClose();
      command.run();
    } else {
      const match = fileMatches[index];
      if (!match) return;
      onClose();
      onOpen(match.path);
    }
  };

  return (
    <div className={styles.backdrop} onMouseDown={onClose} data-testid="quick-open">
      <div
        className={styles.palette}
        onMouseDown={(event) => event.stopPropagation()}
        role="dialog"
        aria-label={commandMode ? "Command palette" : "Quick open"}
      >
        <input
          autoFocus
          value={query}
          placeholder={commandMode ? "Type a command" : "Search files by name (type > for commands)"}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "ArrowDown") {
              event.preventDefault();
              setSelected((s) => Math.min(count - 1, s + 1));
            } else if (event.key === "ArrowUp") {
              event.preventDefault();
              setSelected((s) => Math.max(0, s - 1));
            } else if (event.key === "Enter") {
              event.preventDefault();
              choose(selected);
            } else if (event.key === "Escape") {
              event.preventDefault();
              onClose();
            }
          }}
          aria-controls="quick-open-list"
          data-testid="quick-open-input"
        />
        <ul className={styles.paletteList} id="quick-open-list" role="listbox" ref={listRef}>
          {commandMode
            ? commandMatches.map(({ command, match }, index) => (
                <li
                  key={command.id}
                  role="option"
                  aria-selected={index === selected}
                  onMouseEnter={() => setSelected(index)}
                  onClick={() => choose(index)}
                  data-testid="palette-command"
                >
                  <span>{highlight(command.title, match!.positions)}</span>
                  <span className="spacer" />
                  {command.keys ? <kbd>{command.keys}</kbd> : null}
                </li>
              ))
            : fileMatches.map((match, index) => {
                const nameStart = match.path.lastIndexOf("/") + 1;
                return (
                  <li
                    key={match.path}
                    role="option"
                    aria-selected={index === selected}
                    onMouseEnter={() => setSelected(index)}
                    onClick={() => choose(index)}
                    data-testid="quick-open-item"
                    data-path={match.path}
                  >
                    <span>
                      {highlight(
                        match.path.slice(nameStart),
                        match.positions.filter((p) => p >= nameStart).map((p) => p - nameStart),
                      )}
                    </span>
                    <span className={styles.dir}>
                      {highlight(
                        match.path.slice(0, nameStart),
                        match.positions.filter((p) => p < nameStart),
                      )}
                    </span>
                  </li>
                );
              })}
        </ul>
        {count === 0 ? (
          <div className={styles.paletteNote}>
            {commandMode ? "No matching command" : files.length === 0 ? "No files yet" : "No file name matches"}
          </div>
        ) : null}
        {!commandMode && files.length > 0 ? (
          <div className={styles.paletteNote}>{files.length.toLocaleString()} files</div>
        ) : null}
      </div>
    </div>
  );
}

function highlight(text: string, positions: readonly number[]) {
  if (positions.length === 0) return text;
  const marks = new Set(positions);
  const parts: React.ReactNode[] = [];
  let run = "";
  let inHit = false;
  const flush = (key: number) => {
    if (!run) return;
    parts.push(
      inHit ? (
        <span key={key} className={styles.hit}>
          {run}
        </span>
      ) : (
        run
      ),
    );
    run = "";
  };
  for (let i = 0; i < text.length; i++) {
    const hit = marks.has(i);
    if (hit !== inHit) {
      flush(i);
      inHit = hit;
    }
    run += text[i];
  }
  flush(text.length);
  return parts;
}
