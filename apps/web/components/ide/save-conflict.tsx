"use client";
import { useEffect, useRef, useState } from "react";
import type { OnMount } from "@monaco-editor/react";
import styles from "./save-conflict.module.css";

type MonacoApi = Parameters<OnMount>[1];

/** A save refused with `conflict`: both versions, held until the bar is closed so neither is lost. */
export type SaveConflict = {
  path: string;
  /** What is on disk now (empty when the file was deleted). */
  disk: string;
  /** The disk version's sha256, null when the file no longer exists: an Overwrite then writes unchecked. */
  diskSha256: string | null;
  /** The user's version at the moment of the refused save. */
  mine: string;
  /** Reload took the disk version; `mine` stays recoverable here until the bar closes. */
  reloaded: boolean;
};

export type SaveConflictBarProps = {
  conflict: SaveConflict;
  monaco: MonacoApi | null;
  language: string;
  busy: boolean;
  onOverwrite: () => void;
  onReload: () => void;
  onRestoreMine: () => void;
  onClose: () => void;
};

/** The bar above a file whose save found it changed on disk: Compare, Overwrite, Reload. */
export function SaveConflictBar({
  conflict,
  monaco,
  language,
  busy,
  onOverwrite,
  onReload,
  onRestoreMine,
  onClose,
}: SaveConflictBarProps) {
  const [comparing, setComparing] = useState(false);
  return (
    <div data-testid="save-conflict" data-reloaded={conflict.reloaded ? "true" : "false"}>
      <div className={`banner warn ${styles.bar}`} role="alert">
        <span>
          {conflict.reloaded
            ? "Reloaded the version on disk. Your version is kept here until you close this bar."
            : conflict.diskSha256 === null
              ? "This file was deleted on disk since you opened it."
              : "This file changed on disk since you opened it."}
        </span>
        <span className={styles.actions}>
          <button
            className="btn small"
            onClick={() => setComparing((c) => !c)}
            data-testid="conflict-compare"
            aria-pressed={comparing}
          >
            {comparing ? "Hide compare" : "Compare"}
          </button>
          {conflict.reloaded ? (
            <button className="btn small" onClick={onRestoreMine} data-testid="conflict-restore">
              Restore mine
            </button>
          ) : (
            <>
              {[
                { label: "Overwrite", run: onOverwrite, testId: "conflict-overwrite", title: "Save your version over the one on disk" },
                { label: "Reload", run: onReload, testId: "conflict-reload", title: "Take the version on disk" },
              ].map((choice) => (
                <button key={choice.testId} className="btn small" onClick={choice.run} disabled={busy} data-testid={choice.testId} title={choice.title}>
                  {choice.label}
                </button>
              ))}
            </>
          )}
          <button
            className="btn small ghost"
            onClick={onClose}
            data-testid="conflict-close"
            aria-label="Close the conflict bar"
          >
            ×
          </button>
        </span>
      </div>
      {comparing && monaco ? (
        <ConflictDiff monaco={monaco} disk={conflict.disk} mine={conflict.mine} language={language} />
      ) : null}
    </div>
  );
}

/** Monaco's diff editor, read-only: disk on the left, yours on the right. Its models are its own, disposed with it. */
function ConflictDiff({
  monaco,
  disk,
  mine,
  language,
}: {
  monaco: MonacoApi;
  disk: string;
  mine: string;
  language: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const diff = monaco.editor.createDiffEditor(host.current, {
      readOnly: true,
      originalEditable: false,
      automaticLayout: true,
      renderSideBySide: true,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      theme: "berth-dark",
    });
    const original = monaco.editor.createModel(disk, language);
    const modified = monaco.editor.createModel(mine, language);
    diff.setModel({ original, modified });
    return () => {
      diff.dispose();
      original.dispose();
      modified.dispose();
    };
  }, [monaco, disk, mine, language]);
  return (
    <div className={styles.diff} data-testid="conflict-diff">
      <div className={styles.labels}>
        <span>On disk</span>
        <span>Yours</span>
      </div>
      <div ref={host} className={styles.host} />
    </div>
  );
}
