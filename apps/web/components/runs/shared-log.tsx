"use client";
import { useMemo } from "react";
import { sharedLogText, type SharedReceipt } from "@/lib/api";
import { splitCombined, type LogChunk } from "@/lib/log-lines";
import { LogView, endedLogEmpty } from "./log-view";

type SharedLogs = NonNullable<SharedReceipt["logs"]>;
const offsetOf = (log: SharedLogs["stdout"]) => (typeof log === "object" && log ? (log.offset ?? 0) : 0);

/**
 * The share page's log: the same view as the run page, over the tail the share link carries. When the tail
 * holds the whole log, stderr is marked (the combined log split against the two streams); a longer log
 * shows its last part, in the order written, and says so.
 */
export function SharedLog({ logs, runId, printedBytes }: { logs: SharedReceipt["logs"]; runId: string; /** stdout and stderr as the receipt records them. */ printedBytes: number }) {
  const { chunks, cut } = useMemo((): { chunks: LogChunk[]; cut: boolean } => {
    const combined = sharedLogText(logs?.combined);
    const stdout = sharedLogText(logs?.stdout);
    const stderr = sharedLogText(logs?.stderr);
    if (logs?.combined === undefined) {
      // A runner from before the combined tail: the two streams, one after the other.
      return {
        chunks: [
          ...(stdout ? [{ stream: "stdout" as const, text: stdout }] : []),
          ...(stderr ? [{ stream: "stderr" as const, text: stderr }] : []),
        ],
        cut: offsetOf(logs?.stdout) > 0 || offsetOf(logs?.stderr) > 0,
      };
    }
    const whole = offsetOf(logs.combined) === 0 && offsetOf(logs.stdout) === 0 && offsetOf(logs.stderr) === 0;
    if (!combined) return { chunks: [], cut: false };
    return whole
      ? { chunks: splitCombined(combined, stdout, stderr), cut: false }
      : { chunks: [{ stream: "stdout", text: combined }], cut: true };
  }, [logs]);
  return (
    <>
      {cut ? <p className="muted tiny">The log is long: this link shows its last part.</p> : null}
      <LogView chunks={chunks} live={false} download={{ name: `${runId}.log` }} empty={endedLogEmpty(printedBytes)} testId="shared-log" />
    </>
  );
}
