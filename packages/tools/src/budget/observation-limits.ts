import { BuiltinTool } from "@berth/protocol";

/**
 * How much a caller may read in one turn (docs/tools.md, Observation budget): each observing tool has a
 * per-call cap, and all of them draw from one pool per turn. Bytes are UTF-8 bytes of the result text.
 */
export interface ObservationLimits {
  /** The pool one caller turn draws from (one MCP request, one HTTP call, one socket call). */
  poolBytes: number;
  /** Per-call caps of the observing tools; a tool not named here is not observed. */
  caps: Readonly<Record<string, number>>;
}

export const OBSERVING_TOOLS = ["read_file", "grep", "glob", "code_nav", "context", "gateway"] as const;
export type ObservingTool = (typeof OBSERVING_TOOLS)[number];

export const DEFAULT_OBSERVATION_LIMITS: ObservationLimits = Object.freeze({
  poolBytes: 256 * 1024,
  caps: Object.freeze({
    // read_file's own maxChars default (50000) fits, escapes and all, under its cap.
    read_file: 128 * 1024,
    grep: 48 * 1024,
    glob: 32 * 1024,
    code_nav: 32 * 1024,
    context: 32 * 1024,
    // gateway find only; a gateway call is the capability's own call and draws as that tool.
    gateway: 16 * 1024,
  }),
});


/** Less than this left in the pool is an exhausted pool: a result this small would be all notice. */
export const MIN_OBSERVATION_BYTES = 1024;

/** The most any cap or pool may be set to (one result larger than this is never useful to a model). */
export const MAX_OBSERVATION_BYTES = 64 * 1024 * 1024;

/**
 * A person in the IDE reads what they open: the tree lists every file and the editor loads whole files. The
 * budget guards an agent's context window, so a browser caller's turn observes nothing (no caps, no cut).
 */
export const UNOBSERVED_LIMITS: ObservationLimits = Object.freeze({ poolBytes: MAX_OBSERVATION_BYTES, caps: Object.freeze({}) });

/**
 * Parses `BERTH_OBSERVATION_CAPS` (`grep=4096,read_file=65536`) over the defaults; an unknown tool or a
 * bad number is an error naming it.
 */
export function parseObservationCaps(
  text: string | undefined,
  base: ObservationLimits["caps"] = DEFAULT_OBSERVATION_LIMITS.caps,
): Record<string, number> {
  const caps: Record<string, number> = { ...base };
  if (!text?.trim()) return caps;
  for (const part of text.split(",")) {
    const [tool = "", value = ""] = part.split("=").map((s) => s.trim());
    if (!(OBSERVING_TOOLS as readonly string[]).includes(tool))
      throw new Error(
        `BERTH_OBSERVATION_CAPS: unknown tool ${JSON.stringify(tool)} (observing tools: ${OBSERVING_TOOLS.join(", ")})`,
      );
    const bytes = Number(value);
    if (!Number.isInteger(bytes) || bytes < MIN_OBSERVATION_BYTES || bytes > MAX_OBSERVATION_BYTES) {
      throw new Error(
        `BERTH_OBSERVATION_CAPS: ${tool} must be a whole number of bytes from ${MIN_OBSERVATION_BYTES} to ${MAX_OBSERVATION_BYTES} (got ${JSON.stringify(value)})`,
      );
    }
    caps[tool] = bytes;
  }
  return caps;
}

/** The cap of this call, or undefined when the call is not an observation (a gateway call or describe is not). */
export function observationCapOf(limits: ObservationLimits, tool: string, args: unknown): number | undefined {
  if (!Object.hasOwn(limits.caps, tool)) return undefined;
  if (tool === BuiltinTool.gateway && (args as { op?: unknown } | undefined)?.op !== "find") return undefined;
  return limits.caps[tool];
}
