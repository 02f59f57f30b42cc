import type { ToolProgressListener } from "@berth/protocol";
import type { RunnerEvents } from "../events/runner-events";

/** A line shown in a progress message is cut to this many characters. */
const MAX_LINE_CHARS = 200;

/**
 * Turns a run's live output (the same `run:output` events the IDE follows) into progress for the
 * caller: bytes seen so far, and a message with the elapsed time and the last non-empty line.
 * Returns the function that stops following.
 */
export function followRunProgress(events: RunnerEvents, runId: string, onProgress: ToolProgressListener, now: () => number = Date.now): () => void {
  const started = now();
  let bytes = 0;
  let lines = 0;
  let partial = "";
  let lastLine = "";
  const onOutput = (event: { runId: string; data: string; bytes: number }) => {
    if (event.runId !== runId) return;
    bytes += event.bytes;
    const text = partial + event.data;
    const parts = text.split("\n");
    partial = parts.pop() ?? "";
    lines += parts.length;
    const complete = parts.filter((line) => line.trim() !== "");
    const latest = partial.trim() !== "" ? partial : complete.at(-1);
    // A `\r` redraw (a progress bar) shows only its last state.
    const redrawn = latest?.split("\r").filter((part) => part.trim() !== "").at(-1);
    if (redrawn !== undefined) lastLine = redrawn.replace(/\p{Cc}/gu, "?").slice(0, MAX_LINE_CHARS);
    const elapsed = ((now() - started) / 1000).toFixed(1);
    const seen = `${bytes} bytes, ${lines} line${lines === 1 ? "" : "s"}`;
    onProgress({ progress: bytes, message: `${elapsed}s, ${seen}${lastLine ? `: ${lastLine}` : ""}` });
  };
  events.on("run:output", onOutput);
  return () => events.off("run:output", onOutput);
}
