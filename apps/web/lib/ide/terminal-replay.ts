/**
 * Offset bookkeeping of one terminal tab (pure, no DOM). Output arrives as byte chunks addressed by
 * their offset in the terminal's transcript; a reattach (reconnect, reload) may replay bytes the tab
 * already has or skip none. `accept` returns exactly the new bytes, so the screen sees every byte once.
 * What survives a reload is the offset and the last bytes shown (to redraw the screen), saved together.
 */

import { storedObject } from "./stored-object";

/** Bytes of recent output kept to redraw a tab after a reload (sessionStorage is small). */
export const TAIL_BYTES = 256 * 1024;

export interface ReplayState {
  /** Bytes of transcript the tab has shown: the offset to reattach from. */
  offset: number;
  /** The last bytes shown (at most TAIL_BYTES), ending at `offset`. */
  tail: Uint8Array;
}

export function emptyReplay(): ReplayState {
  return { offset: 0, tail: new Uint8Array(0) };
}

/**
 * The part of a chunk at `offset` that is new to a tab at `state.offset`: null when it is all old (a
 * replayed duplicate) or when it starts past what the tab has (a gap: the caller reattaches).
 */
export function newBytes(
  state: ReplayState,
  offset: number,
  data: Uint8Array,
): { bytes: Uint8Array } | { gap: true } | null {
  const end = offset + data.length;
  if (offset > state.offset) return { gap: true };
  if (end <= state.offset) return null;
  return { bytes: data.subarray(state.offset - offset) };
}

/** The state after showing `bytes` (which start at `state.offset`). */
export function shown(state: ReplayState, bytes: Uint8Array, tailBytes = TAIL_BYTES): ReplayState {
  const keep = Math.min(tailBytes, state.tail.length + bytes.length);
  const tail = new Uint8Array(keep);
  const fromBytes = Math.min(bytes.length, keep);
  const fromTail = keep - fromBytes;
  tail.set(state.tail.subarray(state.tail.length - fromTail), 0);
  tail.set(bytes.subarray(bytes.length - fromBytes), fromTail);
  return { offset: state.offset + bytes.length, tail };
}

/** sessionStorage form: `{offset, tail: base64}` per terminal id. */
export type SavedReplays = Record<string, { offset: number; tail: string }>;

export function encodeReplays(states: Map<string, ReplayState>): SavedReplays {
  const saved: SavedReplays = {};
  for (const [terminalId, state] of states) saved[terminalId] = { offset: state.offset, tail: toBase64(state.tail) };
  return saved;
}

/** Reads what `encodeReplays` wrote; anything malformed is dropped (the tab then replays from 0). */
export function decodeReplays(raw: string | null): Map<string, ReplayState> {
  const states = new Map<string, ReplayState>();
  const parsed = storedObject(raw);
  if (!parsed) return states;
  for (const [terminalId, value] of Object.entries(parsed)) {
    const entry = value as { offset?: unknown; tail?: unknown };
    if (
      typeof entry?.offset !== "number" ||
      !Number.isInteger(entry.offset) ||
      entry.offset < 0 ||
      typeof entry.tail !== "string"
    )
      continue;
    try {
      const tail = fromBase64(entry.tail);
      // A tail longer than the offset cannot be right: start over.
      if (tail.length > entry.offset) continue;
      states.set(terminalId, { offset: entry.offset, tail });
    } catch {
      continue;
    }
  }
  return states;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
