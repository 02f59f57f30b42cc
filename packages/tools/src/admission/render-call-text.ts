import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { DispatchPlanSchema } from "@berth/protocol";
import type { DispatchPlan } from "@berth/protocol";

export const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/** RFC 8785 canonical JSON; `undefined` (no arguments) renders as `null`. */
export function canonicalJson(value: unknown): string {
  return canonicalize(value === undefined ? null : value) ?? "null";
}

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

/** The line a plan shows for one task: tool, args sha256 and a preview. */
export function renderPlanTaskLine(index: number, task: DispatchPlan["tasks"][number]): string {
  const args = canonicalJson(task.args);
  const preview = args.length > PREVIEW_CHARS ? `${args.slice(0, PREVIEW_CHARS - 3)}...` : args;
  const id = task.id === undefined ? "" : ` id=${task.id}`;
  const after = task.after === undefined ? "" : ` after=${[task.after].flat().join(",")}`;
  return showControls(`${index + 1}.${id}${after} ${task.tool} args_sha256=${sha256Hex(args)} ${preview}`);
}

/** `dispatch plan: topology=T tasks=N`, then one line per task. Approving its hash approves the plan. */
export function renderPlanText(plan: DispatchPlan): string {
  const lines = [`dispatch plan: topology=${plan.topology} tasks=${plan.tasks.length}`];
  plan.tasks.forEach((task, i) => lines.push(renderPlanTaskLine(i, task)));
  return lines.join("\n");
}

/**
 * Deterministic rendering of a call: the tool name and its canonical JSON arguments, so equal calls
 * render equally and any change of arguments changes the sha256 an approval binds to. A dispatch
 * call renders as its plan text.
 */
export function renderCallText(tool: string, args: unknown): RenderedCall {
  let text: string;
  const plan = tool === "dispatch" ? DispatchPlanSchema.safeParse(args) : undefined;
  if (plan?.success) text = renderPlanText(plan.data);
  else text = `${showControls(tool)} ${escapeControls(canonicalJson(args))}`;
  return { text, sha256: sha256Hex(text) };
}
