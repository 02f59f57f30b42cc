import { readFile, rename, stat, unlink } from "node:fs/promises";
import { ApplyPatchArgsSchema, type ApplyPatchDetails, type PatchFileChange } from "@berth/protocol";
import { defineTool, okResult } from "../tools/tool-context";
import { fail } from "../tools/tool-failure-error";
import { atomicWrite, writeTemp } from "../workspace/atomic-write";
import { decodeText, statFile } from "../workspace/text-file";
import type { Workspace } from "../workspace/workspace";
import { type Hunk, parsePatch } from "./parse-patch";
import { seekSequence } from "./seek-sequence";

const PATCH_FILE_MAX_BYTES = 20 * 1024 * 1024;

/** One file as the patch sees it: its state on disk, and its state after the operations so far. */
interface VirtualFile {
  real: string;
  rel: string;
  original: string | null;
  content: string | null;
  mode: number | undefined;
  /** The mode on disk, restored on undo (a move onto the file gives it the moved file's mode). */
  originalMode: number | undefined;
}

export const applyPatchTool = defineTool({
  name: "apply_patch",
  schema: ApplyPatchArgsSchema,
  async run(args, { workspace }) {
    const { format, ops } = parsePatch(args.patch);
    const files = new Map<string, VirtualFile>();
    const load = (path: string) => loadFile(workspace, files, path);

    // Phase 1: apply every operation in memory; any failure leaves the disk untouched.
    const fileChanges: PatchFileChange[] = [];
    for (const op of ops) {
      const file = await load(op.path);
      if (op.type === "add") {
        // Over an existing file, Add File replaces it (as Codex does); the lines it had count as removed.
        const linesRemoved = file.content === null ? 0 : countLines(file.content);
        file.content = op.lines.length === 0 ? "" : op.lines.join("\n") + (op.finalNewline ? "\n" : "");
        fileChanges.push({ path: file.rel, operation: "add", linesAdded: op.lines.length, linesRemoved });
      } else if (op.type === "delete") {
        if (file.content === null) fail("not_found", `File does not exist: ${op.path}`);
        fileChanges.push({
          path: file.rel,
          operation: "delete",
          linesAdded: 0,
          linesRemoved: countLines(file.content as string),
        });
        file.content = null;
      } else {
        if (file.content === null) fail("not_found", `File does not exist: ${op.path}`);
        const { content, linesAdded, linesRemoved } = applyHunks(file.content as string, op.hunks, op.path, {
          codexFinalNewline: format === "envelope",
        });
        const change: PatchFileChange = { path: file.rel, operation: "update", linesAdded, linesRemoved };
        if (op.movePath !== undefined) {
          const target = await load(op.movePath);
          if (target !== file) {
            // Onto an existing file, Move to replaces it (as Codex does); the moved file keeps its own mode.
            target.mode = file.mode;
            target.content = content;
            file.content = null;
            change.operation = "move";
            change.movePath = target.rel;
          } else {
            file.content = content;
          }
        } else {
          file.content = content;
        }
        fileChanges.push(change);
      }
    }

    // Phase 2: write every changed file to a temp name, then rename all; undo on any failure.
    const changed = [...files.values()].filter((f) => f.content !== f.original);
    await commit(changed);
    const details: ApplyPatchDetails = { filesChanged: changed.length, operationsApplied: ops.length, fileChanges };
    return okResult(details, { format });
  },
});

async function loadFile(workspace: Workspace, files: Map<string, VirtualFile>, path: string): Promise<VirtualFile> {
  if (path === "") fail("invalid_patch", "Invalid patch envelope\nA file operation names no path.");
  const resolved = await workspace.resolveForWrite(path);
  const known = files.get(resolved.real);
  if (known) return known;
  let original: string | null = null;
  let mode: number | undefined;
  if (resolved.exists) {
    const info = await stat(resolved.real);
    if (info.isDirectory()) fail("is_directory", `Path is a directory: ${path}`);
    ({ mode } = await statFile(resolved, PATCH_FILE_MAX_BYTES));
    original = decodeText(await readFile(resolved.real), path);
  }
  const file: VirtualFile = {
    real: resolved.real,
    rel: resolved.rel,
    original,
    content: original,
    mode,
    originalMode: mode,
  };
  files.set(resolved.real, file);
  return file;
}

function countLines(text: string): number {
  return text === "" ? 0 : text.replace(/\r?\n$/, "").split(/\r?\n/).length;
}

export interface ApplyHunksOptions {
  /**
   * The `*** Begin Patch` format cannot say "no newline at end of file", so like Codex the result ends with
   * one, unless the file had none and a hunk marked `*** End of File` says where the file ends.
   */
  codexFinalNewline?: boolean;
}

export function applyHunks(
  text: string,
  hunks: Hunk[],
  displayPath: string,
  options: ApplyHunksOptions = {},
): { content: string; linesAdded: number; linesRemoved: number } {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  let finalNewline = text === "" || text.endsWith("\n");
  const lines = text === "" ? [] : text.replace(/\r?\n$/, "").split(/\r?\n/);
  let cursor = 0;
  let linesAdded = 0;
  let linesRemoved = 0;
  for (const hunk of hunks) {
    if (hunk.anchor !== undefined) {
      const anchor = hunk.anchor;
      const found = seekSequence(lines, [anchor], { from: cursor });
      if (found === -1)
        fail("hunk_not_found", `Failed to locate hunk in ${displayPath}\nAnchor line not found: ${anchor}`);
      cursor = found + 1;
    }
    const seek = { from: cursor, eof: hunk.eof, ...(hunk.hint === undefined ? {} : { hint: hunk.hint }) };
    let body = hunk.lines;
    let old = body.filter((l) => l.kind !== "+").map((l) => l.text);
    let at: number;
    if (old.length === 0) {
      at =
        hunk.eof || (hunk.anchor === undefined && hunk.hint === undefined)
          ? lines.length
          : hunk.hint !== undefined
            ? Math.min(hunk.hint + 1, lines.length)
            : cursor;
    } else {
      at = seekSequence(lines, old, seek);
      // Models often leave a stray blank context line at a hunk's end; try without it.
      while (at === -1 && body.length > 0 && body.at(-1)?.kind === " " && body.at(-1)?.text.trim() === "") {
        body = body.slice(0, -1);
        old = body.filter((l) => l.kind !== "+").map((l) => l.text);
        at = old.length === 0 ? -1 : seekSequence(lines, old, seek);
      }
      if (at === -1) {
        fail(
          "hunk_not_found",
          `Failed to locate hunk in ${displayPath}\nExpected lines:\n${hunk.lines
            .filter((l) => l.kind !== "+")
            .map((l) => l.text)
            .join("\n")}`,
        );
      }
    }
    // Context lines keep the file's own text (whitespace a fuzzy match forgave stays as it was).
    const replacement: string[] = [];
    let k = at;
    for (const line of body) {
      if (line.kind === " ") replacement.push(lines[k++] as string);
      else if (line.kind === "-") {
        k++;
        linesRemoved++;
      } else {
        replacement.push(line.text);
        linesAdded++;
      }
    }
    lines.splice(at, old.length, ...replacement);
    cursor = at + replacement.length;
    if (hunk.noNewlineNew) finalNewline = false;
    else if (hunk.noNewlineOld) finalNewline = true;
  }
  if (options.codexFinalNewline && !(hunks.some((h) => h.eof) && !finalNewline)) finalNewline = true;
  return { content: lines.length === 0 ? "" : lines.join(eol) + (finalNewline ? eol : ""), linesAdded, linesRemoved };
}

/** Writes temp files for all, renames them into place, then deletes; on failure restores what was done. */
async function commit(changed: VirtualFile[]): Promise<void> {
  const temps = new Map<VirtualFile, string>();
  const done: VirtualFile[] = [];
  try {
    for (const file of changed) {
      if (file.content !== null)
        temps.set(file, await writeTemp(file.real, Buffer.from(file.content, "utf8"), file.mode));
    }
    for (const file of changed) {
      const temp = temps.get(file);
      if (temp !== undefined) await rename(temp, file.real);
      else await unlink(file.real);
      temps.delete(file);
      done.push(file);
    }
  } catch (error) {
    await Promise.all([...temps.values()].map((t) => unlink(t).catch(() => undefined)));
    for (const file of done.reverse()) {
      if (file.original === null) await unlink(file.real).catch(() => undefined);
      else
        await atomicWrite(file.real, Buffer.from(file.original, "utf8"), { mode: file.originalMode }).catch(
          () => undefined,
        );
    }
    throw error;
  }
}
