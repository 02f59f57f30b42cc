// Type tests for the socket event maps (checked by `tsc -p packages/protocol`, never run): both ends of
// the socket use the one pair of maps, so a payload or ack that drifts from the schemas fails typecheck.
import type { Server } from "socket.io";
import type { Socket } from "socket.io-client";
import { outputText, type ClientEventResult, type ClientToServerEvents, type ServerToClientEvents } from "./socket-events";

declare const io: Server<ClientToServerEvents, ServerToClientEvents>;
declare const client: Socket<ServerToClientEvents, ClientToServerEvents>;

// ---- the runner's end ----

io.on("connection", (socket) => {
  socket.on("terminal:open", (payload, ack) => {
    const cols: number = payload.cols;
    ack(null, { terminalId: "t", runId: "r", sessionId: payload.sessionId, name: "Terminal 1", status: "running", exitCode: null, cols, rows: payload.rows, bytes: 0, createdAt: "" });
    // @ts-expect-error a terminal's status is running or exited
    ack(null, { terminalId: "t", runId: "r", sessionId: "s", name: "n", status: "open", exitCode: null, cols, rows: 1, bytes: 0, createdAt: "" });
    // @ts-expect-error the open payload has no terminalId
    void payload.terminalId;
  });
  socket.on("runs:subscribe", (ack) => ack?.(null, { ok: true, scope: "own" }));
  // @ts-expect-error an event the contract does not have
  socket.on("run:delete", () => undefined);
  socket.emit("run:output", { runId: "r", stream: "stdout", offset: 0, data: "hi" });
  // @ts-expect-error run:output's stream is stdout or stderr (combined is process:output's)
  socket.emit("run:output", { runId: "r", stream: "combined", offset: 0, data: "hi" });
  // @ts-expect-error offset is a number of bytes
  socket.emit("run:output", { runId: "r", stream: "stdout", offset: "0", data: "hi" });
  // A subscriber that asked for binary output gets the bytes.
  socket.emit("run:output", { runId: "r", stream: "stdout", offset: 0, data: new Uint8Array([104, 105]) });
  // @ts-expect-error output data is text or bytes
  socket.emit("process:output", { sessionId: "s", processId: "p", stream: "combined", offset: 0, data: 104 });
  socket.emit("terminal:output", { terminalId: "t", offset: 0, data: new Uint8Array([104]) }, () => undefined);
  // @ts-expect-error terminal output is bytes, not text
  socket.emit("terminal:output", { terminalId: "t", offset: 0, data: "h" }, () => undefined);
});
io.to("session:s").emit("file:changed", { sessionId: "s", path: "." });
// @ts-expect-error file:changed names its session
io.to("session:s").emit("file:changed", { path: "." });

// ---- the browser's end ----

client.emit("run:subscribe", { runId: "r", offset: { stdout: 10, stderr: 0 } });
// A payload's defaults are optional for the sender (the runner fills them in when it parses).
client.emit("terminal:attach", { terminalId: "t" }, (err, info) => {
  if (!err && info) {
    const offset: number = info.offset;
    void offset;
  }
});
// @ts-expect-error terminal:attach takes a terminalId, not a sessionId
client.emit("terminal:attach", { sessionId: "s" }, () => undefined);
// @ts-expect-error cols is a number
client.emit("terminal:resize", { terminalId: "t", cols: "80", rows: 24 });
client.emit("tool:call", { sessionId: "s", tool: "read_file", args: { path: "a" }, callId: "c1" }, (err, answer) => {
  if (err) return void err.code;
  if (answer && "status" in answer) {
    const approvalId: string = answer.approvalId;
    void approvalId;
  } else if (answer) {
    const ok: boolean = answer.ok;
    void ok;
  }
});
client.on("run:status", (event) => {
  const outcome: string | null = event.outcome;
  void outcome;
  // @ts-expect-error run:status carries no output
  void event.data;
});
client.emit("run:subscribe", { runId: "r", offset: 0, encoding: "binary" });
// @ts-expect-error output comes as text or binary
client.emit("process:subscribe", { sessionId: "s", processId: "p", encoding: "base64" });
client.on("run:output", (event) => {
  const text: string = outputText(event.data);
  // @ts-expect-error data may be bytes: read it through outputText / outputBytes
  const raw: string = event.data;
  void [text, raw];
});
client.on("terminal:output", (event, ack) => {
  const bytes: Uint8Array | ArrayBuffer = event.data;
  void bytes;
  ack();
});
// @ts-expect-error session:status's handler gets a SessionStatusEvent, not a run's
client.on("session:status", (event: { runId: string }) => void event);

// ---- ack results ----

const joined: ClientEventResult<"session:join"> = { sessionId: "s", status: "ready" };
const scope: ClientEventResult<"approvals:subscribe"> = { ok: true, scope: "any" };
// @ts-expect-error run:cancel answers {runId, status, outcome}
const cancelled: ClientEventResult<"run:cancel"> = { ok: true };
void [joined, scope, cancelled];
