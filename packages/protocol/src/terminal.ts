import { z } from "zod";

/**
 * Terminals: a PTY made inside the session's container by the agent, streamed to the browser over
 * socket.io. Two wires are described here: the browser ↔ runner socket events (docs/api.md
 * "Terminals") and the runner ↔ agent methods on the attached stdio channel. Output is addressed by byte
 * offset in the terminal's transcript (which is its run's stdout log), so a client that reattaches from
 * the last offset it saw gets no gap and no duplicate.
 */

export const TERMINAL_MAX_OPEN = 8;
export const TERMINAL_MAX_COLS = 1000;
export const TERMINAL_MAX_ROWS = 500;
export const TERMINAL_NAME_MAX = 60;
/** One terminal:input event at most (a paste); larger pastes are split by the client. */
export const TERMINAL_INPUT_MAX_BYTES = 64 * 1024;

const Cols = z.number().int().min(2).max(TERMINAL_MAX_COLS);
const Rows = z.number().int().min(1).max(TERMINAL_MAX_ROWS);
const Name = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(TERMINAL_NAME_MAX, `must be at most ${TERMINAL_NAME_MAX} characters`);
const Id = z.string().min(1).max(100);
const Offset = z.number().int().min(0);
const utf8 = new TextEncoder();

// ---- socket events, browser → runner ----

export const TerminalOpenSchema = z.strictObject({ sessionId: Id, cols: Cols, rows: Rows, name: Name.optional() });
export type TerminalOpen = z.infer<typeof TerminalOpenSchema>;
export const TerminalListSchema = z.strictObject({ sessionId: Id });
export const TerminalAttachSchema = z.strictObject({ terminalId: Id, offset: Offset.default(0) });
export type TerminalAttach = z.infer<typeof TerminalAttachSchema>;
export const TerminalInputSchema = z.strictObject({
  terminalId: Id,
  data: z
    .string()
    .refine(
      (s) => utf8.encode(s).length <= TERMINAL_INPUT_MAX_BYTES,
      `must be at most ${TERMINAL_INPUT_MAX_BYTES} bytes`,
    ),
});
export const TerminalResizeSchema = z.strictObject({ terminalId: Id, cols: Cols, rows: Rows });
export const TerminalRenameSchema = z.strictObject({ terminalId: Id, name: Name });
export const TerminalCloseSchema = z.strictObject({ terminalId: Id });

export const TerminalStatusSchema = z.enum(["running", "exited"]);

/** A terminal as terminal:open / terminal:list report it. */
export const TerminalInfoSchema = z.object({
  terminalId: z.string(),
  runId: z.string(),
  sessionId: z.string(),
  name: z.string(),
  status: TerminalStatusSchema,
  exitCode: z.number().int().nullable(),
  cols: z.number().int(),
  rows: z.number().int(),
  /** Bytes of transcript so far: a client at this offset has seen everything. */
  bytes: z.number().int().nonnegative(),
  createdAt: z.string(),
});
export type TerminalInfo = z.infer<typeof TerminalInfoSchema>;

// ---- socket events, runner → browser ----

/**
 * `data` is raw bytes (a binary attachment): a UTF-8 character may be split across two events. The runner
 * sends a Buffer; a browser's socket.io client hands it over as an ArrayBuffer.
 */
export const TerminalOutputEventSchema = z.object({
  terminalId: z.string(),
  offset: Offset,
  data: z.custom<Uint8Array | ArrayBuffer>((value) => value instanceof Uint8Array || value instanceof ArrayBuffer, "must be bytes"),
});
export type TerminalOutputEvent = z.infer<typeof TerminalOutputEventSchema>;
export const TerminalExitEventSchema = z.object({ terminalId: z.string(), exitCode: z.number().int().nullable() });
export type TerminalExitEvent = z.infer<typeof TerminalExitEventSchema>;

// ---- agent methods (runner → agent), on the same JSON-RPC channel as tool.call ----

export const TerminalMethod = {
  Open: "terminal.open",
  Input: "terminal.input",
  Resize: "terminal.resize",
  Read: "terminal.read",
  Close: "terminal.close",
  List: "terminal.list",
} as const;
export type TerminalMethodName = (typeof TerminalMethod)[keyof typeof TerminalMethod];

export function isTerminalMethod(method: string): method is TerminalMethodName {
  return (Object.values(TerminalMethod) as string[]).includes(method);
}

export const AgentTerminalOpenParamsSchema = z.strictObject({
  cols: Cols,
  rows: Rows,
  env: z.record(z.string(), z.string()).optional(),
});
export const AgentTerminalOpenResultSchema = z.object({ terminalId: z.string(), pid: z.number().int() });

/** `data` is base64 (any bytes survive the JSON line). */
export const AgentTerminalInputParamsSchema = z.strictObject({ terminalId: Id, data: z.string() });
export const AgentTerminalInputResultSchema = z.object({ bytesWritten: z.number().int().nonnegative() });

export const AgentTerminalResizeParamsSchema = z.strictObject({ terminalId: Id, cols: Cols, rows: Rows });
export const AgentTerminalOkResultSchema = z.object({ ok: z.literal(true) });

/**
 * Long poll: answers with up to `maxBytes` from `offset` as soon as there are any (maxBytes 0: only
 * when the shell exits), or empty after `waitMs`. Asking from `offset` releases everything before it:
 * the agent holds only what the runner has not read, and stops reading the PTY when that is full, so a
 * terminal nobody reads blocks its program instead of growing anyone's memory. A newer read of the same
 * terminal answers an older one at once (empty).
 */
export const AgentTerminalReadParamsSchema = z.strictObject({
  terminalId: Id,
  offset: Offset,
  maxBytes: z
    .number()
    .int()
    .min(0)
    .max(4 * 1024 * 1024),
  waitMs: z.number().int().min(0).max(60_000),
});
export const AgentTerminalReadResultSchema = z.object({
  offset: Offset,
  data: z.string(),
  /** Bytes produced so far (read or not). */
  end: Offset,
  /** Set once the shell has exited (output may still be left to read). */
  exitCode: z.number().int().nullable(),
  /** Nothing more will ever come after this answer's data. */
  eof: z.boolean(),
});
export type AgentTerminalReadResult = z.infer<typeof AgentTerminalReadResultSchema>;

/** Hangs up: SIGHUP to the shell's process group (KILL after a grace); its output can still be read. */
export const AgentTerminalCloseParamsSchema = z.strictObject({ terminalId: Id });

export const AgentTerminalListResultSchema = z.object({
  terminals: z.array(
    z.object({ terminalId: z.string(), pid: z.number().int(), end: Offset, exitCode: z.number().int().nullable() }),
  ),
});
