"use client";
import { useEffect, useRef, useState } from "react";
import { getRun, getRunLogTimes, type LogStream, type Run } from "@/lib/api";
import { splitCombined } from "@/lib/log-lines";
import type { LogTime } from "@/lib/log-times";
import { sliceNew } from "@/lib/format";
import { streamRunLog } from "@/lib/run-log-stream";
import { outputText } from "@berth/protocol";
import { getSocket, onEveryConnect, type RunOutputWireEvent, type RunStatusEvent } from "@/lib/socket";

export type OutputChunk = { stream: LogStream; text: string };
/** `times`: when the bytes of `chunks` (joined, by UTF-8 offset) arrived: the runner's record, or for live output the moment it reached this page. */
export type RunStream = { chunks: OutputChunk[]; times: LogTime[]; status: string | null; outcome: string | null; exitCode: number | null; run: Run | null; error: string | null };

const EMPTY: RunStream = { chunks: [], times: [], status: null, outcome: null, exitCode: null, run: null, error: null };
const utf8Length = (text: string) => new TextEncoder().encode(text).length;

/** A stream's whole stored log, read in one streamed request. */
async function readWhole(runId: string, stream: LogStream): Promise<string> {
  let text = "";
  await streamRunLog(runId, stream, 0, (piece) => void (text += piece.text));
  return text;
}

/**
 * Live output of one run: the stored logs from offset 0 (each one streamed request, docs/api.md), then
 * `run:output` from where they ended, with a slow poll as a safety net. Every piece goes through the per-stream byte offsets held here, so replays,
 * reconnects and the poll never duplicate text nor leave a gap (lib/api.ts A3).
 */
export function useRunStream(runId: string | null): RunStream {
  const [state, setState] = useState<RunStream>(EMPTY);
  const haveRef = useRef<Record<LogStream, number>>({ stdout: 0, stderr: 0 });
  /** Bytes of all chunks joined: where the next piece's times go. */
  const bytesRef = useRef(0);

  useEffect(() => {
    setState(EMPTY);
    haveRef.current = { stdout: 0, stderr: 0 };
    bytesRef.current = 0;
    if (!runId) return;
    let cancelled = false;
    let loaded = false;
    let finished = false;
    const queue: RunOutputWireEvent[] = [];
    const socket = getSocket();

    /** `pageTimes`: [stream offset, ms] from the runner; without them the piece is stamped now (live output). */
    const append = (stream: LogStream, offset: number, data: string, pageTimes?: [number, number][]): boolean => {
      const piece = sliceNew(haveRef.current[stream], offset, data);
      if (!piece) return true;
      if (piece.gap) return false;
      const start = Math.max(haveRef.current[stream], offset);
      haveRef.current[stream] = piece.end;
      if (piece.text) {
        const base = bytesRef.current;
        bytesRef.current += utf8Length(piece.text);
        const stamps: LogTime[] = pageTimes
          ? pageTimes.filter(([o]) => o < piece.end).map(([o, at]) => ({ offset: base + Math.max(0, o - start), at }))
          : [{ offset: base, at: Date.now() }];
        setState((old) => {
          const chunks = old.chunks.slice();
          const last = chunks[chunks.length - 1];
          if (last && last.stream === stream) chunks[chunks.length - 1] = { stream, text: last.text + piece.text };
          else chunks.push({ stream, text: piece.text });
          return { ...old, chunks, times: [...old.times, ...stamps] };
        });
      }
      return true;
    };

    /** The rest of a stream's stored log from what this page has, with when its bytes arrived. */
    const fetchFrom = async (stream: LogStream) => {
      const from = haveRef.current[stream];
      const { times, size } = await getRunLogTimes(runId, stream, from);
      if (cancelled) return;
      let next = 0;
      await streamRunLog(runId, stream, from, (piece) => {
        if (cancelled) return;
        // This piece's times: those that start in it, and for the first the chunk it starts inside. Bytes
        // written since the times were read are stamped as they reach the page, like live output.
        const mine: [number, number][] = [];
        while (next < times.length && (times[next]![0] < piece.end || next === 0)) mine.push(times[next++]!);
        append(stream, piece.offset, piece.text, times.length > 0 && piece.offset >= size ? undefined : mine);
      });
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

    const onOutput = (event: RunOutputWireEvent) => {
      if (event.runId !== runId) return;
      if (!loaded) {
        queue.push(event);
        return;
      }
      // Binary events (asked for below) are whole characters: one native decode, no JSON string to parse.
      if (!append(event.stream, event.offset, outputText(event.data))) void catchUp().catch(() => undefined);
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
      // The combined log is the chunks joined, so its offsets are the times' offsets as they are.
      const times: LogTime[] = [];
      const timesRead = getRunLogTimes(runId, "combined").then(
        (answer) => {
          for (const [o, at] of answer.times) if (times.length === 0 || o > times[times.length - 1]!.offset) times.push({ offset: o, at });
        },
        () => undefined,
      );
      let content = "";
      let shown = 0;
      // One streamed request. The first lines go on screen as they arrive, then again each time what has
      // arrived doubles: lines show as they come, and the view parses about twice the log, not once a piece.
      const bytes = await streamRunLog(runId, "combined", 0, (piece) => {
        content += piece.text;
        if (cancelled || content.length < shown * 2) return;
        shown = content.length;
        const text = content;
        setState((old) => ({ ...old, chunks: [{ stream: only ?? "stdout", text }], times: [...times] }));
      });
      await timesRead;
      if (cancelled) return false;
      let chunks: OutputChunk[] = [];
      if (content && only) chunks = [{ stream: only, text: content }];
      else if (content) {
        // The combined log has no stream marks: walking it against the two stream logs gives each piece back
        // to the stream that wrote it, so stderr is still marked.
        const [stdout, stderr] = await Promise.all([readWhole(runId, "stdout"), readWhole(runId, "stderr")]);
        chunks = splitCombined(content, stdout, stderr);
      }
      if (cancelled) return false;
      haveRef.current = { ...known };
      bytesRef.current = bytes;
      setState((old) => ({ ...old, chunks, times }));
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
      socket.emit("run:subscribe", { runId, offset: { stdout: h.stdout, stderr: h.stderr }, encoding: "binary" });
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
