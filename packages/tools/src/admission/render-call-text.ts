import { DispatchPlanSchema, canonicalJson, redactSecrets } from "@berth/protocol";
import type { DispatchPlan, FilesHashResult } from "@berth/protocol";
import { sha256Hex } from "@berth/protocol/node";
import { builtinSpecOf } from "../builtin/builtin-tools";

export { sha256Hex };

/** A call's arguments as canonical JSON (RFC 8785, @berth/protocol's); no arguments (undefined) render as `null`. */
export const canonicalArgsJson = (args: unknown): string => canonicalJson(args === undefined ? null : args);

// C0, DEL, C1, bidi overrides/isolates, zero-width and line/paragraph separators: what could make
// the text an operator reads differ from what runs.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

export const showControls = (text: string): string => text.replace(CONTROL, "?");

/** Inside JSON the same characters become `\uXXXX` escapes: readable, and still the same value. */
const escapeControls = (json: string): string =>
  json.replace(CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);

const PREVIEW_CHARS = 120;

export interface RenderedCall {
  text: string;
  sha256: string;
}

/** What env values become in an approval text: the spec stores and shows keys only. */
export const ENV_VALUE_MASK = "***";

/**
 * The arguments as an approval text shows them (redactSecrets): `env` values as `***` (keys kept), tokens
 * and other secret shapes masked. The text's hash therefore binds env keys, not their values.
 */
export function argsForText(args: unknown): unknown {
  return redactSecrets(args, [], { envValueMask: ENV_VALUE_MASK });
}

/** The line a plan shows for one task: tool, args sha256 and a preview. */
export function renderPlanTaskLine(index: number, task: DispatchPlan["tasks"][number]): string {
  const args = canonicalArgsJson(argsForText(task.args));
  const preview = args.length > PREVIEW_CHARS ? `${args.slice(0, PREVIEW_CHARS - 3)}...` : args;
  const id = task.id === undefined ? "" : ` id=${task.id}`;
  const after = task.after === undefined ? "" : ` after=${[task.after].flat().join(",")}`;
  return showControls(`${index + 1}.${id}${after} ${task.tool} args_sha256=${sha256Hex(args)} ${preview}`);
}

/**
 * `dispatch plan: topology=T tasks=N`, then one line per task (a compete or review adds its checks and whether
 * the winner is applied, then one `check N.` line each). Approving its hash approves the plan.
 */
export function renderPlanText(plan: DispatchPlan): string {
  const judged = plan.topology === "compete" || plan.topology === "review";
  const checks = plan.checks ?? [];
  const extra = judged ? ` checks=${checks.length} apply=${plan.apply === false ? "no" : "winner"}` : "";
  const lines = [`dispatch plan: topology=${plan.topology} tasks=${plan.tasks.length}${extra}`];
  plan.tasks.forEach((task, i) => lines.push(renderPlanTaskLine(i, task)));
  if (judged) checks.forEach((check, i) => lines.push(`check ${renderPlanTaskLine(i, check)}`));
  return lines.join("\n");
}

/**
 * Deterministic rendering of a call: the tool name and its canonical JSON arguments, so equal calls
 * render equally and any change of arguments changes the sha256 an approval binds to. A dispatch
 * call renders as its plan text.
 */
export function renderCallText(tool: string, args: unknown): RenderedCall {
  let text: string;
  const plan = builtinSpecOf(tool)?.plansCalls ? DispatchPlanSchema.safeParse(args) : undefined;
  if (plan?.success) text = renderPlanText(plan.data);
  else text = `${showControls(tool)} ${escapeControls(canonicalArgsJson(argsForText(args)))}`;
  return { text, sha256: sha256Hex(text) };
}

// The files a call binds are a fact of each tool (its spec's boundFiles); these stay importable from here.
export { boundFilesOf } from "../builtin/builtin-tools";
export { patchTargets } from "../builtin/patch-targets";
export type { BoundFiles } from "../registry/tool-spec";

// In shown file content newlines and tabs stay; every other control character is shown as `?`.
// eslint-disable-next-line no-control-regex
const CONTENT_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * The call's text with what its files hold now appended: one `file <path> sha256=<hex> bytes=<n>` line each
 * (`absent`, or `not bound (<note>)` when a file cannot be hashed), then the previewed file's content, each
 * line after `| ` (capped at FILE_PREVIEW_MAX_BYTES, with its size and sha256 above it). The
 * hash of this text is what the operator approves, so a changed file is a different call.
 */
export function bindCallText(rendered: RenderedCall, hashed: FilesHashResult): RenderedCall {
  const lines = [rendered.text];
  for (const file of hashed.files) {
    const state =
      file.note === "absent"
        ? "absent"
        : file.sha256 === null
          ? `not bound (${file.note ?? "unreadable"})`
          : `sha256=${file.sha256} bytes=${file.bytes ?? 0}`;
    lines.push(showControls(`file ${file.path} ${state}`));
  }
  const preview = hashed.preview;
  const previewed = preview ? hashed.files.find((f) => f.path === preview.path) : undefined;
  if (preview && previewed?.sha256) {
    const shown = `${preview.truncated ? "first " : ""}${Buffer.byteLength(preview.text)} of ${previewed.bytes ?? 0} bytes`;
    lines.push(showControls(`--- ${preview.path} (${shown}, sha256 ${previewed.sha256}) ---`));
    // Every content line is prefixed, so content cannot pass for the lines around it.
    for (const line of preview.text.replace(CONTENT_CONTROL, "?").replace(/\n$/, "").split("\n"))
      lines.push(`| ${line}`);
    lines.push(showControls(`--- end of ${preview.path}${preview.truncated ? " (truncated)" : ""} ---`));
  }
  const text = lines.join("\n");
  return { text, sha256: sha256Hex(text) };
}

/** The sha256 per file the agent must find at execution (null: absent); files that could not be hashed bind nothing. */
export function expectedHashes(hashed: FilesHashResult): Record<string, string | null> {
  const expect: Record<string, string | null> = {};
  for (const file of hashed.files) {
    if (file.note === "absent") expect[file.path] = null;
    else if (file.sha256 !== null) expect[file.path] = file.sha256;
  }
  return expect;
}
