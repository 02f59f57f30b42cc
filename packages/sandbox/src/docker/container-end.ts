import type Docker from "dockerode";
import type { TerminationCause } from "@berth/protocol";
import type { SessionState } from "../driver/session-state";
import { errorMessage } from "./docker-errors";

const EXIT_WAIT_MS = 600;
/**
 * An OOM event at most this long before the agent's stream ended (or while its death is examined) explains it.
 * Per event, because Docker's State.OOMKilled stays true for the container's life once any process in it was
 * OOM-killed (on cgroup v1 and v2), so a later `kill -9` of the agent would read as an OOM too.
 */
const OOM_EXPLAINS_MS = 2_000;
/** How long a SIGKILLed agent's end waits for the engine's OOM event, which can trail the stream's end. */
const OOM_EVENT_GRACE_MS = 400;

export interface ContainerEnd {
  cause: TerminationCause;
  exitCode: number | null;
}

/**
 * Why the agent's stream of `containerId` ended: its exit code, and an OOM only when the engine reported one for
 * this container around the end (the session's oomSeenOn / lastOomAt, which engine events keep up to date).
 */
export async function explainContainerEnd(
  container: Docker.Container,
  containerId: string,
  oom: Pick<SessionState, "oomSeenOn" | "lastOomAt">,
  warn: (message: string, error: unknown) => void,
): Promise<ContainerEnd> {
  const endedAt = Date.now();
  const oomNow = () =>
    oom.oomSeenOn === containerId && oom.lastOomAt !== null && oom.lastOomAt >= endedAt - OOM_EXPLAINS_MS;
  await Promise.race([container.wait({ condition: "not-running" }).catch(() => undefined), delay(EXIT_WAIT_MS)]);
  let cause: TerminationCause = "exited";
  let exitCode: number | null = null;
  try {
    const inspect = await container.inspect();
    exitCode = inspect.State.Running ? null : inspect.State.ExitCode;
    // 137: killed by SIGKILL, by the OOM killer or by anyone else; the event says which.
    if (exitCode === 137 && !oomNow()) await waitFor(oomNow, OOM_EVENT_GRACE_MS);
    // OOMKilled alone counts only when no OOM event was ever seen for this container (the event stream was down).
    const oomUnseen = inspect.State.OOMKilled && oom.oomSeenOn !== containerId;
    if (oomNow() || oomUnseen) cause = "oom";
    if (inspect.State.Running) cause = "unresponsive"; // stdout closed but the container lives on
  } catch (error) {
    if (oomNow()) cause = "oom";
    warn(`could not inspect the dead container: ${errorMessage(error)}`, error);
  }
  return { cause, exitCode };
}

/** What a dead container that a previous runner left says about its end (reconcile). */
export async function inspectDeadContainer(container: Docker.Container): Promise<ContainerEnd> {
  const inspect = await container.inspect().catch(() => null);
  return { cause: inspect?.State.OOMKilled ? "oom" : "exited", exitCode: inspect?.State.ExitCode ?? null };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `done` every 25 ms until it holds or `ms` pass. */
async function waitFor(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await delay(25);
}
