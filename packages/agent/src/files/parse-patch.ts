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

/** Parses either the `*** Begin Patch` format or a unified diff (as `git diff` prints it). */
export function parsePatch(patch: string): PatchOperation[] {
  let lines = patch.split(/\r?\n/);
  // Weak-model tolerance: drop a surrounding Markdown fence and blank edges.
  while (lines.length > 0 && (lines[0] as string).trim() === "") lines.shift();
  while (lines.length > 0 && (lines.at(-1) as string).trim() === "") lines.pop();
  if (lines[0]?.startsWith("```")) lines = lines.slice(1, (lines.at(-1) ?? "").startsWith("```") ? -1 : undefined);
  const first = lines[0]?.trim() ?? "";
  if (first === "*** Begin Patch") return parseEnvelope(lines);
  if (lines.some((l) => l.startsWith("--- ") || l.startsWith("diff --git "))) return parseUnified(lines);
  return envelopeError("A patch starts with *** Begin Patch (or is a unified diff with ---/+++ headers).");
}

const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const END_OF_FILE = "*** End of File";
const isHeader = (line: string) =>
  line.startsWith(ADD) || line.startsWith(DELETE) || line.startsWith(UPDATE) || line.trim() === "*** End Patch";

function parseEnvelope(lines: string[]): PatchOperation[] {
  if ((lines.at(-1) ?? "").trim() !== "*** End Patch") envelopeError("The last line must be *** End Patch.");
  const end = lines.length - 1;
  const ops: PatchOperation[] = [];
  let i = 1;
  while (i < end) {
    const line = lines[i] as string;
    if (line.trim() === "") {
      i++;
    } else if (line.startsWith(ADD)) {
      const content: string[] = [];
      for (i++; i < end && !isHeader(lines[i] as string); i++) {
        const body = lines[i] as string;
        if (!body.startsWith("+")) unsupported(body);
        content.push(body.slice(1));
      }
      ops.push({ type: "add", path: line.slice(ADD.length).trim(), lines: content, finalNewline: true });
    } else if (line.startsWith(DELETE)) {
      ops.push({ type: "delete", path: line.slice(DELETE.length).trim() });
      i++;
    } else if (line.startsWith(UPDATE)) {
      const op: PatchOperation & { type: "update" } = {
        type: "update",
        path: line.slice(UPDATE.length).trim(),
        hunks: [],
      };
      i++;
      if (lines[i]?.startsWith(MOVE)) {
        op.movePath = (lines[i] as string).slice(MOVE.length).trim();
        i++;
      }
      let hunk: Hunk | undefined;
      const newHunk = (anchor?: string) => {
        hunk = { eof: false, lines: [], ...(anchor ? { anchor } : {}) };
        op.hunks.push(hunk);
        return hunk;
      };
      for (; i < end && !isHeader(lines[i] as string); i++) {
        const body = lines[i] as string;
        if (body.startsWith("@@")) newHunk(body.slice(2).trim() || undefined);
        else if (body.trim() === END_OF_FILE) (hunk ?? unsupported(body)).eof = true;
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
