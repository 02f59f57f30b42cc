import { toolFailure, type ToolResult } from "@berth/protocol";
import { MIN_OBSERVATION_BYTES, type ObservationLimits } from "./observation-limits";
import { stubJson, withExtra } from "./stub-json";
import { truncationNotice } from "./truncation-notice";

/** After this many exhausted answers in a row the next is an error: the caller is not reading the notice. */
export const EXHAUSTED_NOTICES_BEFORE_ERROR = 3;

/** Keeps the full text of a cut result and returns the ref `context recall` reads it back by. */
export type OverflowSaver = (tool: string, text: string) => Promise<string>;

/** What `context budget` shows. */
export interface ObservationBudgetView {
  poolBytes: number;
  usedBytes: number;
  remainingBytes: number;
  observations: number;
  truncated: number;
  exhaustedInARow: number;
  caps: Readonly<Record<string, number>>;
}

const byteLength = (text: string): number => Buffer.byteLength(text, "utf8");

/**
 * The observation pool of one caller turn: one MCP request, one HTTP call or one socket call, shared by the
 * calls it makes through gateway and dispatch. Every observing call draws what it shows; a result larger
 * than its cap or than what is left is cut to a stub that still parses, with one notice naming the ref to
 * recall the rest; an exhausted pool answers with a notice and does not run the tool.
 */
export class ObservationTurn {
  private used = 0;
  private observations = 0;
  private truncated = 0;
  private exhaustedInARow = 0;

  constructor(readonly limits: ObservationLimits) {}

  remaining(): number {
    return Math.max(0, this.limits.poolBytes - this.used);
  }

  view(): ObservationBudgetView {
    return {
      poolBytes: this.limits.poolBytes,
      usedBytes: this.used,
      remainingBytes: this.remaining(),
      observations: this.observations,
      truncated: this.truncated,
      exhaustedInARow: this.exhaustedInARow,
      caps: this.limits.caps,
    };
  }

  /** Before a call runs: the answer when the pool is spent (a notice; the 4th in a row an error), else undefined. */
  refusal(tool: string): ToolResult | undefined {
    if (this.remaining() >= MIN_OBSERVATION_BYTES) return undefined;
    this.exhaustedInARow++;
    const spent = `the observation budget of this turn is spent (used ${this.used} of ${this.limits.poolBytes} bytes)`;
    if (this.exhaustedInARow > EXHAUSTED_NOTICES_BEFORE_ERROR) {
      return toolFailure(
        "budget_exhausted",
        `${tool}: ${spent}; this is call ${this.exhaustedInARow} in a row after it ran out. Stop observing in this turn and answer with what you have, or start a new turn (a new request)`,
        { budget: { ...this.view() } },
      );
    }
    const notice = `budget exhausted: ${tool} did not run: ${spent}. A new turn (a new request) gets a new pool; context {"scope":"budget"} shows it`;
    const details = { budgetExhausted: true, notice, budget: { ...this.view() } };
    return { ok: true, output: JSON.stringify({ notice }), details };
  }

  /**
   * After a call ran: draws what it shows from the pool, cutting it to `min(cap, remaining)` first. A failure
   * is drawn as it is (its message is short and must be read whole). A result drawn whole is answered at once (no
   * promise): most are, and a call's reply need not wait a turn for it.
   */
  fit(tool: string, cap: number, result: ToolResult, save: OverflowSaver): ToolResult | Promise<ToolResult> {
    this.observations++;
    this.exhaustedInARow = 0;
    const total = byteLength(result.output);
    const left = this.remaining();
    const limit = Math.min(cap, left);
    if (!result.ok || total <= limit) {
      this.used += total;
      return result;
    }
    return this.cut(tool, cap, result, save, { total, left, limit });
  }

  /** A result cut to `limit`: its whole output saved for `context recall`, a stub of it shown. */
  private async cut(tool: string, cap: number, result: ToolResult, save: OverflowSaver, { total, left, limit }: { total: number; left: number; limit: number }): Promise<ToolResult> {
    const ref = await save(tool, result.output);
    const why =
      limit === cap ? `${tool} cap ${cap} bytes` : `${left} bytes left of this turn's pool of ${this.limits.poolBytes}`;
    const extra = (shownBytes: number) => ({
      notice: truncationNotice({ ref, shownBytes, totalBytes: total, limit: why }),
    });
    const details = result.details ?? parseObject(result.output);
    const cut = (details && stubJson(details, limit, extra)) ?? withExtra({ truncated: true }, extra);
    this.truncated++;
    this.used += byteLength(cut.text);
    const { content: _content, structuredContent: _structured, ...rest } = result;
    return {
      ...rest,
      output: cut.text,
      details: cut.stub,
      trace: { ...(result.trace ?? {}), observation: { ref, totalBytes: total, shownBytes: byteLength(cut.text) } },
    };
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
