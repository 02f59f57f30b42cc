import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { BASH_MAX_TIMEOUT_MS, WORKSPACE_ROOT } from "@berth/protocol";
import type { SandboxDriver, SessionOutputEvent } from "@berth/sandbox";

const WORKSPACE = WORKSPACE_ROOT;
/** Bytes the command may send per credit, and at most this much granted but not yet taken by the reader. */
export const DOWNLOAD_CREDIT_BYTES = 2 * 1024 * 1024;
export const DOWNLOAD_WINDOW_BYTES = 3 * DOWNLOAD_CREDIT_BYTES;

/**
 * Passes its stdin to stdout only as far as the credits it reads from the FIFO named by argv[1] allow (one
 * decimal byte count per line); exits at the end of stdin. The FIFO is opened read-write, so it never reads
 * an end while the runner is between two writes.
 */
const GATE = [
  "import os, sys",
  "ctl = os.open(sys.argv[1], os.O_RDWR)",
  "pending = b''",
  "while True:",
  "    while b'\\n' not in pending:",
  "        pending += os.read(ctl, 64)",
  "    line, pending = pending.split(b'\\n', 1)",
  "    left = int(line)",
  "    while left > 0:",
  "        data = os.read(0, min(left, 65536))",
  "        if not data:",
  "            sys.exit(0)",
  "        left -= len(data)",
  "        while data:",
  "            data = data[os.write(1, data):]",
].join("\n");

const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;

export interface CommandOutputStream {
  stream: Readable;
  /** Credits granted so far (tests, logs): each lets DOWNLOAD_CREDIT_BYTES more out of the container. */
  credits(): number;
}

/**
 * The stdout of `command` (run in /workspace as a bash exec in the session's container, streamed by the agent
 * as it is written) as a Readable that keeps its reader's backpressure. The agent pushes a command's output
 * without waiting for anyone, so the command's output goes through a gate in the container that lets out
 * only what the runner granted; the runner grants more while what it holds plus what is granted stays within
 * DOWNLOAD_WINDOW_BYTES, and holds off while its reader (the HTTP response) does not drain. So a slow browser
 * slows tar instead of filling the runner's memory.
 *
 * The stream ends once the command exited 0 and every byte it wrote arrived; it is destroyed with an error
 * otherwise (a cut archive must not look whole), and destroying it (a reader that hung up) aborts the command.
 * A command runs for at most BASH_MAX_TIMEOUT_MS.
 */
export function commandOutputStream(driver: SandboxDriver, sessionId: string, command: string, what: string): CommandOutputStream {
  const id = randomUUID();
  const callId = `download_${id}`;
  const fifo = `/tmp/berth-download-${id}`;
  let received = 0;
  // The script grants the first window itself, into the FIFO before the gate opens it.
  let granted = DOWNLOAD_WINDOW_BYTES;
  let creditCount = 0;
  let done = false;
  /** The stream's buffer is full (push said so): no credit until it asks to be read again. */
  let full = false;

  const exec = (script: string, opts: { callId?: string; timeoutMs?: number } = {}) =>
    driver.call(sessionId, { tool: "bash", args: { action: "exec", command: script, ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}) }, callId: opts.callId ?? `download_${randomUUID()}`, env: {} });

  /**
   * Grants credits while the window has room and the reader keeps up (the stream's buffer is not full). Grants
   * do not wait for one another: a bash exec costs from milliseconds to seconds on a loaded host, and credits
   * only add up.
   */
  const grant = () => {
    // Nothing arrived yet: the FIFO may not exist, and the first window is not used up.
    while (!done && received > 0 && !full && granted - received < DOWNLOAD_WINDOW_BYTES) {
      granted += DOWNLOAD_CREDIT_BYTES;
      creditCount++;
      // `timeout`: once the gate has gone (the command ended) nothing reads the FIFO and the open would wait.
      exec(`[ -p ${fifo} ] && timeout 5 sh -c 'printf "%s\\n" ${DOWNLOAD_CREDIT_BYTES} > ${fifo}'; true`).catch((error: unknown) => finish(error as Error));
    }
  };

  const stream = new Readable({
    highWaterMark: DOWNLOAD_CREDIT_BYTES,
    read() {
      // Called whenever the reader wants more; the stream calls it again only after a push.
      full = false;
      grant();
    },
    destroy(error, callback) {
      if (!done) {
        finish();
        // A reader that hung up stops tar rather than let it run to the end for no one.
        void driver.abort(sessionId, callId).catch(() => undefined);
      }
      callback(error);
    },
  });

  function finish(error?: Error) {
    if (done) return;
    done = true;
    driver.off("output", onOutput);
    if (error) stream.destroy(error);
    else stream.push(null);
  }
  function onOutput(event: SessionOutputEvent) {
    if (event.sessionId !== sessionId || event.callId !== callId || event.stream !== "stdout" || done) return;
    const chunk = event.data;
    received += chunk.length;
    if (!stream.push(chunk)) full = true;
    grant();
  }
  driver.on("output", onOutput);

  const script =
    `F=${fifo}; mkfifo -m 600 "$F" || exit 97; trap 'rm -f "$F"' EXIT; exec 3<>"$F"; printf '%s\\n' ${DOWNLOAD_WINDOW_BYTES} >&3; set -o pipefail; ` +
    `cd ${WORKSPACE} && ${command} | python3 -c ${quote(GATE)} "$F"`;
  exec(script, { callId, timeoutMs: BASH_MAX_TIMEOUT_MS })
    .then((result) => {
      const details = (result.details ?? {}) as { exitCode?: unknown; stderr?: unknown };
      const sent = (result.trace as { stdoutBytes?: unknown } | undefined)?.stdoutBytes;
      // The result comes after the output on the agent's channel: every chunk has arrived by now.
      if (!result.ok || details.exitCode !== 0) {
        const why = result.error?.message ?? `exited with code ${String(details.exitCode)}`;
        finish(new Error(`${what} ${why}: ${String(details.stderr ?? "").trim().slice(-500)}`));
      } else if (typeof sent === "number" && sent !== received) {
        finish(new Error(`${what}: ${received} of ${sent} bytes arrived`));
      } else finish();
    })
    .catch((error: unknown) => finish(error as Error));
  return { stream, credits: () => creditCount };
}
