"use client";
import { useCallback, useEffect, useState } from "react";
import { cancelRun, errorMessage, listRuns, type Parked, type Run } from "@/lib/api";
import { interpreterFor } from "@/lib/languages";
import { callToolLive } from "@/lib/socket";
import { useRunStream } from "@/components/runs/use-run-stream";
import type { Notice } from "./use-notice";

const runKey = (sessionId: string) => `berth:run:${sessionId}`;

type UseRunOptions = {
  sessionId: string;
  /** The file ▶ Run runs (the active tab). */
  activePath: () => string | null;
  /** Saves the file first; false stops the run. */
  save: () => Promise<boolean>;
  /** Show the output pane (a run starting, or a run restored after a reload). */
  showOutput: () => void;
  notify: (notice: Notice | null) => void;
  onParked: (parked: Parked | null) => void;
};

/**
 * ▶ Run and ■ Stop for the open file, the run whose output shows (kept per session in sessionStorage so a
 * reload shows it again) and the session's run list, read again whenever a run's status changes.
 */
export function useRun({ sessionId, activePath, save, showOutput, notify, onParked }: UseRunOptions) {
  const [runId, setRunId] = useState<string | null>(null);
  const [runPending, setRunPending] = useState(false);
  const [stopping, setStopping] = useState(false);
  const [runs, setRuns] = useState<Run[] | null>(null);
  const stream = useRunStream(runId);

  const reloadRuns = useCallback(async () => {
    try {
      setRuns(await listRuns({ sessionId, limit: 50 }));
    } catch {
      // shown as stale; the dashboard has the error state
    }
  }, [sessionId]);

  const adoptRun = useCallback(
    (id: string) => {
      setRunId(id);
      try {
        window.sessionStorage.setItem(runKey(sessionId), id);
      } catch {
        // private mode: the output is still shown until reload
      }
    },
    [sessionId],
  );

  const run = useCallback(async () => {
    const path = activePath();
    const interpreter = path ? interpreterFor(path) : null;
    if (!path || !interpreter || runPending) return;
    if (!(await save())) return;
    showOutput();
    setRunPending(true);
    notify(null);
    let adopted: string | null = null;
    const adopt = (id: string) => {
      if (adopted) return;
      adopted = id;
      adoptRun(id);
    };
    try {
      // The call answers when the script ends; the runner names its run as soon as it exists (lib/api.ts A2).
      const result = await callToolLive(sessionId, "run_script", { interpreter, script: path }, { onParked, onRunStarted: adopt });
      onParked(null);
      if (result.runId) adopt(result.runId);
      if (result.error?.code === "cancelled") notify({ tone: "bad", text: "Cancelled: the call did not run" });
      else if (!result.runId && !result.ok) notify({ tone: "bad", text: result.error?.message ?? result.output });
    } catch (error) {
      notify({ tone: "bad", text: `Run failed: ${errorMessage(error)}` });
    } finally {
      setRunPending(false);
      void reloadRuns();
    }
  }, [sessionId, activePath, runPending, save, showOutput, notify, onParked, adoptRun, reloadRuns]);

  // Stop: kills the run's process group; the run ends as aborted (POST /api/runs/:id/cancel).
  const stop = useCallback(async () => {
    if (!runId) return;
    setStopping(true);
    try {
      await cancelRun(runId);
    } catch (error) {
      notify({ tone: "bad", text: `Stop failed: ${errorMessage(error)}` });
    } finally {
      setStopping(false);
    }
  }, [runId, notify]);

  // Restore the last run's output after a reload.
  useEffect(() => {
    try {
      const saved = window.sessionStorage.getItem(runKey(sessionId));
      if (saved) {
        setRunId(saved);
        showOutput();
      }
    } catch {
      // no storage
    }
    void reloadRuns();
    // Once per session page: showOutput only switches a pane.
  }, [sessionId, reloadRuns]);

  useEffect(() => {
    if (stream.status && stream.status !== "running") void reloadRuns();
  }, [stream.status, reloadRuns]);

  return { runId, runPending, stopping, runs, stream, running: !!runId && stream.status === "running", run, stop, adoptRun, reloadRuns };
}

export type RunApi = ReturnType<typeof useRun>;
