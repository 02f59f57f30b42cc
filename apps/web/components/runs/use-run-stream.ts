"use client";
import { useEffect, useRef, useState } from "react";
import { getAllRunLogs, getRun, getRunLogs, type LogStream, type Run } from "@/lib/api";
import { splitCombined } from "@/lib/log-lines";
import { sliceNew } from "@/lib/format";
import { getSocket, onEveryConnect, type RunOutputEvent, type RunStatusEvent } from "@/lib/socket";

export type OutputChunk = { stream: LogStream; text: string };
export type RunStream = { chunks: OutputChunk[]; status: string | null; outcome: string | null; exitCode: number | null; run: Run | null; error: string | null };

const EMPTY: RunStream = { chunks: [], status: null, outcome: null, exitCode: null, run: null, error: null };

/**
 * Live output of one run: the stored logs from offset 0, then `run:output` from where they ended, with a
 * slow poll as a safety net. Every piece goes through the per-stream byte offsets held here, so replays,
 * reconnects and the poll never duplicate text nor leave a gap (lib/api.ts A3).
 */
export function useRunStream(runId: string | null): RunStream {
  const [state, setState] = useState<RunStream>(EMPTY);
  const haveRef = useRef<Record<LogStream, number>>({ stdout: 0, stderr: 0 });

  useEffect(() => {
    setState(EMPTY);
    haveRef.current = { stdout: 0, stderr: 0 };
    if (!runId) return;
    let cancelled = false;
    let loaded = false;
    let finished = false;
    const queue: RunOutputEvent[] = [];
    const socket = getSocket();

    const append = (stream: LogStream, offset: number, data: string): boolean => {
      const piece = sliceNew(haveRef.current[stream], offset, data);
      if (!piece) return true;
      if (piece.gap) return false;
      haveRef.current[stream] = piece.end;
      if (piece.text) {
        setState((old) => {
          const chunks = old.chunks.slice();
          const last = chunks[chunks.length - 1];
          if (last && last.stream === stream) chunks[chunks.length - 1] = { stream, text: last.text + piece.text };
          else chunks.push({ stream, text: piece.text });
          return { ...old, chunks };
        });
      }
      return true;
    };

    const fetchFrom = async (stream: LogStream) => {
      for (let i = 0; i < 200 && !cancelled; i++) {
        const from = haveRef.current[stream];
        const page = await getRunLogs(runId, stream, from, 1_048_576);
        if (cancelled) return;
        append(stream, page.offset ?? from, page.content);
        if (!page.content || page.nextOffset <= from || page.done) return;
      }
    };

    const catchUp = async () => {
      await fetchFrom("stdout");
      await fetchFrom("stderr");
    };

    let sizes: Record<LogStream, number> | null = null;
    const refreshRun = async () => {
      const detail = await getRun(runId);
      if (cancelled) return;
      const run = detail.run;
      finished = run.status !== "running";
      const bytes = run as { stdoutBytes?: number; stderrBytes?: number };
      sizes = { stdout: bytes.stdoutBytes ?? 0, stderr: bytes.stderrBytes ?? 0 };
      setState((old) => ({ ...old, run, status: run.status, outcome: run.outcome, exitCode: run.exitCode }));
    };

    const onOutput = (event: RunOutputEvent) => {
      if (event.runId !== runId) return;
      if (!loaded) {
        queue.push(event);
        return;
      }
      if (!append(event.stream, event.offset, event.data)) void catchUp().catch(() => undefined);
    };
    const onStatus = (event: RunStatusEvent) => {
      if (event.runId !== runId) return;
      setState((old) => ({ ...old, status: event.status, outcome: event.outcome ?? old.outcome, exitCode: event.exitCode ?? old.exitCode }));
      if (event.status !== "running") {
        finished = true;
        // The last bytes may still be in flight: read the stored logs to their end, then the final record.
        void catchUp()
          .then(refreshRun)
          .catch(() => undefined);
      }
    };
    socket.on("run:output", onOutput);
    socket.on("run:status", onStatus);

    // A run that has ended is read from its combined log: stdout and stderr in the order they were written
    // (the per-stream logs cannot say how they interleaved). A live run's events arrive in that order anyway.
    const loadCombined = async (): Promise<boolean> => {
      if (!sizes) return false;
      const known = sizes;
      // One stream only: the combined log is that stream, nothing to split.
      const only: LogStream | null = known.stderr === 0 ? "stdout" : known.stdout === 0 ? "stderr" : null;
      let content = "";
      let offset = 0;
      for (let i = 0; i < 200 && !cancelled; i++) {
        // A small first page, shown at once: a long log's first lines appear while the rest loads.
        const page = await getRunLogs(runId, "combined" as LogStream, offset, i === 0 ? 262_144 : 1_048_576);
        content += page.content;
        if (!page.content || page.nextOffset <= offset || page.done) break;
        offset = page.nextOffset;
        if (i === 0 && !cancelled) {
          const first = content;
          setState((old) => ({ ...old, chunks: [{ stream: only ?? "stdout", text: first }] }));
        }
      }
      if (cancelled) return false;
      let chunks: OutputChunk[] = [];
      if (content && only) chunks = [{ stream: only, text: content }];
      else if (content) {
        // The combined log has no stream marks: walking it against the two stream logs gives each piece back
        // to the stream that wrote it, so stderr is still marked.
        const [stdout, stderr] = await Promise.all([getAllRunLogs(runId, "stdout"), getAllRunLogs(runId, "stderr")]);
        chunks = splitCombined(content, stdout.content, stderr.content);
      }
      if (cancelled) return false;
      haveRef.current = { ...known };
      setState((old) => ({ ...old, chunks }));
      return true;
    };

    void (async () => {
      try {
        await refreshRun();
        if (!(finished && (await loadCombined().catch(() => false)))) await catchUp();
      } catch (error) {
        if (!cancelled) setState((old) => ({ ...old, error: (error as Error).message }));
      }
      loaded = true;
      for (const event of queue.splice(0)) onOutput(event);
    })();

    const stopConnect = onEveryConnect(socket, () => {
      const h = haveRef.current;
      socket.emit("run:subscribe", { runId, offset: { stdout: h.stdout, stderr: h.stderr } });
    });

    // Safety net while the run is live (a missed event, a runner that streams elsewhere).
    const timer = setInterval(() => {
      if (!loaded || cancelled) return;
      const wasFinished = finished;
      void (async () => {
        await catchUp();
        if (wasFinished) clearInterval(timer);
        else await refreshRun();
      })().catch(() => undefined);
    }, 1500);

    return () => {
      cancelled = true;
      socket.off("run:output", onOutput);
      socket.off("run:status", onStatus);
      stopConnect();
      clearInterval(timer);
    };
  }, [runId]);

  return state;
}
