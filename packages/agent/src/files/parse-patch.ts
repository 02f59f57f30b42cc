import { posix } from "node:path";
import { fail } from "../tools/tool-failure-error";

export interface HunkLine {
  kind: " " | "-" | "+";
  text: string;
}

export interface Hunk {
  /** Text after `@@` in the *** Begin Patch format: a line to find before the hunk. */
  anchor?: string;
  /** 0-based line where a unified diff says the hunk starts in the old file. */
  hint?: number;
  /** `*** End of File`: the hunk must match at the end. */
  eof: boolean;
  lines: HunkLine[];
  /** `\ No newline at end of file` seen for the new side / the old side. */
  noNewlineNew?: boolean;
  noNewlineOld?: boolean;
}

export type PatchOperation =
  | { type: "add"; path: string; lines: string[]; finalNewline: boolean }
  | { type: "delete"; path: string }
  | { type: "update"; path: string; movePath?: string; hunks: Hunk[] };

const envelopeError = (reason: string): never => fail("invalid_patch", `Invalid patch envelope\n${reason}`);
const unsupported = (line: string): never => fail("invalid_patch", `Unsupported patch line: ${line}`);

export interface ParsedPatch {
  format: "envelope" | "unified-diff";
  ops: PatchOperation[];
}

/** Parses either the `*** Begin Patch` format or a unified diff (as `git diff` prints it). */
export function parsePatch(patch: string): ParsedPatch {
  let lines = trimBlankEdges(patch.split(/\r?\n/));
  // Weak-model tolerance: drop a surrounding Markdown fence.
  if (lines[0]?.startsWith("```")) lines = lines.slice(1, (lines.at(-1) ?? "").startsWith("```") ? -1 : undefined);
  const heredoc = unwrapHeredoc(trimBlankEdges(lines));
  lines = trimBlankEdges(heredoc?.body ?? lines);
  const first = lines[0]?.trim() ?? "";
  let parsed: ParsedPatch;
  if (first === "*** Begin Patch") parsed = { format: "envelope", ops: parseEnvelope(lines) };
  else if (lines.some((l) => l.startsWith("--- ") || l.startsWith("diff --git ")))
    parsed = { format: "unified-diff", ops: parseUnified(lines) };
  else return envelopeError("A patch starts with *** Begin Patch (or is a unified diff with ---/+++ headers).");
  const workdir = heredoc?.workdir;
  return workdir === undefined ? parsed : { ...parsed, ops: parsed.ops.map((op) => inWorkdir(op, workdir)) };
}

function trimBlankEdges(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] as string).trim() === "") start++;
  while (end > start && (lines[end - 1] as string).trim() === "") end--;
  return lines.slice(start, end);
}

/**
 * The shell wrapper models put around a patch, as Codex accepts it: a first line `<<EOF` (or `<<'EOF'`,
 * `<<"EOF"`), `apply_patch <<'EOF'`, or `cd <dir> && apply_patch <<'EOF'`, and a last line that is the
 * delimiter. With `cd`, the patch's paths are relative to that folder.
 */
const HEREDOC_START =
  /^\s*(?:cd\s+(?:"([^"]*)"|'([^']*)'|([^\s"'&;|<>]+))\s*&&\s*)?(?:(?:apply_patch|applypatch)\s*)?<<(["']?)([A-Za-z_][\w-]*)\4\s*$/;

function unwrapHeredoc(lines: string[]): { body: string[]; workdir?: string } | undefined {
  const m = HEREDOC_START.exec(lines[0] ?? "");
  if (!m || lines.length < 3 || (lines.at(-1) as string).trim() !== m[5]) return undefined;
  const body = lines.slice(1, -1);
  const workdir = m[1] ?? m[2] ?? m[3];
  return workdir === undefined ? { body } : { body, workdir };
}

function inWorkdir(op: PatchOperation, workdir: string): PatchOperation {
  const join = (p: string) => (p === "" || posix.isAbsolute(p) ? p : posix.join(workdir, p));
  if (op.type !== "update") return { ...op, path: join(op.path) };
  return { ...op, path: join(op.path), ...(op.movePath === undefined ? {} : { movePath: join(op.movePath) }) };
}

const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const END_OF_FILE = "*** End of File";
const END_PATCH = "*** End Patch";
/** Marker lines are recognised with any whitespace around them (models pad them; Codex trims them). */
const isHeader = (line: string) => {
  const marker = line.trim();
  return marker.startsWith(ADD) || marker.startsWith(DELETE) || marker.startsWith(UPDATE) || marker === END_PATCH;
};
/** Inside an update a line starting with a space is context, even one that reads like a marker (as in Codex). */
const endsUpdate = (line: string) => line[0] !== " " && isHeader(line);

function parseEnvelope(lines: string[]): PatchOperation[] {
  if ((lines.at(-1) ?? "").trim() !== END_PATCH) envelopeError("The last line must be *** End Patch.");
  const end = lines.length - 1;
  const ops: PatchOperation[] = [];
  let i = 1;
  while (i < end) {
    const line = lines[i] as string;
    const marker = line.trim();
    if (marker === "") {
      i++;
    } else if (marker.startsWith(ADD)) {
      const content: string[] = [];
      for (i++; i < end && !isHeader(lines[i] as string); i++) {
        const body = lines[i] as string;
        if (!body.startsWith("+")) unsupported(body);
        content.push(body.slice(1));
      }
      ops.push({ type: "add", path: marker.slice(ADD.length).trim(), lines: content, finalNewline: true });
    } else if (marker.startsWith(DELETE)) {
      ops.push({ type: "delete", path: marker.slice(DELETE.length).trim() });
      i++;
    } else if (marker.startsWith(UPDATE)) {
      const op: PatchOperation & { type: "update" } = {
        type: "update",
        path: marker.slice(UPDATE.length).trim(),
        hunks: [],
      };
      i++;
      const move = lines[i]?.trim() ?? "";
      if (move.startsWith(MOVE)) {
        op.movePath = move.slice(MOVE.length).trim();
        i++;
      }
      let hunk: Hunk | undefined;
      const newHunk = (anchor?: string) => {
        hunk = { eof: false, lines: [], ...(anchor ? { anchor } : {}) };
        op.hunks.push(hunk);
        return hunk;
      };
      for (; i < end && !endsUpdate(lines[i] as string); i++) {
        const body = lines[i] as string;
        if (body.startsWith("@@")) newHunk(body.slice(2).trim() || undefined);
        else if (body[0] !== " " && body.trim() === END_OF_FILE) (hunk ?? unsupported(body)).eof = true;
        else if (body === "") (hunk ?? newHunk()).lines.push({ kind: " ", text: "" });
        else if (body[0] === " " || body[0] === "-" || body[0] === "+")
          (hunk ?? newHunk()).lines.push({ kind: body[0], text: body.slice(1) });
        else unsupported(body);
      }
      if (op.hunks.length === 0 && op.movePath === undefined)
        envelopeError(`*** Update File: ${op.path} has no hunks.`);
      ops.push(op);
    } else {
      unsupported(line);
    }
  }
  if (ops.length === 0) envelopeError("The patch has no file operations.");
  return ops;
}

/** Git headers that carry nothing a text patch needs. */
const GIT_NOISE =
  /^(diff --git |index |new file mode |deleted file mode |old mode |new mode |similarity index |dissimilarity index |copy from |copy to |Binary files )/;
const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function parseDiffPath(raw: string, prefix: "a/" | "b/"): string | null {
  let p = raw.split("\t")[0]?.trim() ?? "";
  if (p.startsWith('"') && p.endsWith('"')) p = JSON.parse(p) as string;
  if (p === "/dev/null") return null;
  return p.startsWith(prefix) ? p.slice(2) : p;
}

function parseUnified(lines: string[]): PatchOperation[] {
  const ops: PatchOperation[] = [];
  let renameFrom: string | undefined;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.startsWith("rename from ")) {
      renameFrom = line.slice("rename from ".length).trim();
      i++;
    } else if (line.startsWith("rename to ")) {
      const to = line.slice("rename to ".length).trim();
      // A pure rename has no ---/+++ section; one with edits is completed by it.
      if (!lines[i + 1]?.startsWith("--- ") && renameFrom !== undefined)
        ops.push({ type: "update", path: renameFrom, movePath: to, hunks: [] });
      i++;
    } else if (line.startsWith("--- ")) {
      const plus = lines[i + 1] ?? "";
      if (!plus.startsWith("+++ ")) unsupported(plus);
      const oldPath = parseDiffPath(line.slice(4), "a/");
      const newPath = parseDiffPath(plus.slice(4), "b/");
      i += 2;
      const hunks: Hunk[] = [];
      while (i < lines.length && (lines[i] as string).startsWith("@@")) {
        const header = lines[i] as string;
        const m = HUNK_HEADER.exec(header);
        if (!m) unsupported(header);
        let oldLeft = Number(m?.[2] ?? 1);
        let newLeft = Number(m?.[4] ?? 1);
        const hunk: Hunk = { eof: false, lines: [], hint: Number(m?.[1]) - 1 };
        i++;
        while (i < lines.length && (oldLeft > 0 || newLeft > 0 || (lines[i] as string).startsWith("\\"))) {
          const body = lines[i] as string;
          if (body.startsWith("\\")) {
            const last = hunk.lines.at(-1);
            if (last?.kind !== "-") hunk.noNewlineNew = true;
            if (last?.kind !== "+") hunk.noNewlineOld = true;
          } else {
            const kind = body === "" ? " " : body[0];
            if (kind !== " " && kind !== "-" && kind !== "+") unsupported(body);
            hunk.lines.push({ kind: kind as HunkLine["kind"], text: body.slice(1) });
            if (kind !== "+") oldLeft--;
            if (kind !== "-") newLeft--;
          }
          i++;
        }
        hunks.push(hunk);
      }
      if (oldPath === null && newPath === null) unsupported(line);
      if (oldPath === null) {
        const added = hunks.flatMap((h) => h.lines.filter((l) => l.kind === "+").map((l) => l.text));
        ops.push({
          type: "add",
          path: newPath as string,
          lines: added,
          finalNewline: !hunks.some((h) => h.noNewlineNew),
        });
      } else if (newPath === null) {
        ops.push({ type: "delete", path: oldPath });
      } else {
        ops.push({
          type: "update",
          path: renameFrom ?? oldPath,
          hunks,
          ...((renameFrom ?? oldPath) !== newPath ? { movePath: newPath } : {}),
        });
      }
      renameFrom = undefined;
    } else if (line.trim() === "" || GIT_NOISE.test(line)) {
      i++;
    } else {
      unsupported(line);
    }
  }
  if (ops.length === 0) envelopeError("The diff has no file sections.");
  return ops;
}
