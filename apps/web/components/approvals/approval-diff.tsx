"use client";
import { useMemo, useState } from "react";
import { BuiltinTool } from "@berth/protocol";
import { getApprovalFiles, type ApprovalFile } from "@/lib/api";
import { diffLines, foldUnchanged, type DiffRow } from "@/lib/line-diff";
import { useAsync } from "@/components/ui/use-async";
import styles from "./approval-diff.module.css";

/** Rows shown before "Show all": a long diff is folded, not dropped. */
const SHOWN_ROWS = 80;
const DIFFED = new Set<string>([BuiltinTool.write_file, BuiltinTool.apply_patch]);

/** The arguments as the approval text renders them: `<tool> <canonical JSON>` on its first line. */
export function argsOfText(text: string): Record<string, unknown> | null {
  const head = text.split("\n", 1)[0] ?? "";
  try {
    const args: unknown = JSON.parse(head.slice(head.indexOf(" ") + 1));
    return typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A patch's own lines as diff rows: it is already a diff against the files it names. */
function patchRows(patch: string): DiffRow[] {
  return patch
    .replace(/\n$/, "")
    .split("\n")
    .map((text): DiffRow => {
      if (/^(\+\+\+ |--- |\*\*\* |@@)/.test(text)) return { kind: "same", text, header: true };
      if (text.startsWith("+")) return { kind: "add", text: text.slice(1) };
      if (text.startsWith("-")) return { kind: "del", text: text.slice(1) };
      return { kind: "same", text: text.startsWith(" ") ? text.slice(1) : text };
    });
}

function Rows({ rows, testId }: { rows: DiffRow[]; testId: string }) {
  const [all, setAll] = useState(false);
  const shown = all ? rows : rows.slice(0, SHOWN_ROWS);
  return (
    <>
      <div className={styles.diff} data-testid={testId}>
        {shown.map((row, i) =>
          row.kind === "fold" ? (
            <div key={i} className={styles.fold} data-testid="diff-fold">
              ⋯ {row.count} unchanged line{row.count === 1 ? "" : "s"}
            </div>
          ) : (
            <div
              key={i}
              className={`${styles.line} ${row.kind === "add" ? styles.add : row.kind === "del" ? styles.del : row.header ? styles.header : ""}`}
              data-testid={`diff-${row.kind}`}
            >
              <span className={styles.sign}>{row.kind === "add" ? "+" : row.kind === "del" ? "-" : " "}</span>
              {row.text}
            </div>
          ),
        )}
      </div>
      {rows.length > SHOWN_ROWS ? (
        <button className="btn small ghost" onClick={() => setAll(!all)} data-testid="diff-show-all">
          {all ? "Show less" : `Show all ${rows.length} lines`}
        </button>
      ) : null}
    </>
  );
}

/** What the file's state means for the approval: the diff is what would run only while its hash is the bound one. */
function FileState({ file }: { file: ApprovalFile }) {
  if (file.note) return <span className="bad-text tiny">{file.note}</span>;
  if (file.current !== file.bound)
    return (
      <span className="bad-text tiny" data-testid="diff-stale">
        changed since the call was parked: approving it fails with “changed since approval”
      </span>
    );
  return (
    <span className="muted tiny" data-testid="diff-bound">
      {file.bound ? `against the current file, sha256 ${file.bound.slice(0, 12)}… (bound by the approval)` : "a new file (bound: absent)"}
    </span>
  );
}

/**
 * For a parked write_file or apply_patch: the change against the file as it is now, added and removed lines
 * coloured, unchanged stretches and long diffs folded. The runner reads the current files (GET
 * /api/approvals/:id/files) with the sha256 the approval binds; the diff is against that content, and the card
 * says when the file changed since (the call would then be refused, so the diff is not what would run).
 */
export function ApprovalDiff({ approval }: { approval: { id: string; tool: string; text: string } }) {
  const diffed = DIFFED.has(approval.tool);
  const files = useAsync(() => (diffed ? getApprovalFiles(approval.id) : Promise.resolve({ files: [] })), [approval.id, diffed]);
  const args = useMemo(() => argsOfText(approval.text), [approval.text]);
  const sections = useMemo(() => {
    if (!diffed || !files.data || !args) return [];
    if (approval.tool === BuiltinTool.write_file && typeof args.content === "string") {
      const file = files.data.files[0];
      if (!file) return [];
      const lines = diffLines(file.content ?? "", args.content);
      const rows = lines ? foldUnchanged(lines) : null;
      return [{ file, rows, partial: file.truncated }];
    }
    if (approval.tool === BuiltinTool.apply_patch && typeof args.patch === "string") {
      return [{ file: files.data.files[0], rows: patchRows(args.patch), partial: false, all: files.data.files }];
    }
    return [];
  }, [diffed, files.data, args, approval.tool]);
  if (!diffed) return null;
  if (files.error) return <p className="bad-text tiny">Diff not available: {files.error}</p>;
  if (!files.data) return <p className="muted tiny">Loading the diff…</p>;
  return (
    <div data-testid="approval-diff">
      {sections.map((section, i) => (
        <details key={i} open className={styles.section}>
          <summary className="tiny">
            {approval.tool === BuiltinTool.write_file ? <span className="mono">{section.file?.path}</span> : "The patch, per file it touches"}{" "}
            {"all" in section && section.all ? (
              section.all.map((f) => (
                <span key={f.path} className={styles.fileState}>
                  <span className="mono">{f.path}</span> <FileState file={f} />
                </span>
              ))
            ) : section.file ? (
              <FileState file={section.file} />
            ) : null}
            {section.partial ? <span className="muted tiny"> (the file is long: compared in part)</span> : null}
          </summary>
          {section.rows ? <Rows rows={section.rows} testId="diff-rows" /> : <p className="muted tiny">Too many changes to show line by line: the whole file is replaced.</p>}
        </details>
      ))}
    </div>
  );
}
