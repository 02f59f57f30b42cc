import { AppError, RECEIPT_VERSION, ReceiptBodySchema } from "@berth/protocol";
import type {
  CallerKind,
  ReceiptBody,
  ReceiptFileHash,
  ReceiptLog,
  ReceiptOutputHash,
  ReceiptPlan,
  ReceiptSandbox,
  RunOutcome,
} from "@berth/protocol";
import { randomUUID } from "node:crypto";
import { envKeys, redactArgs } from "./redact-args";
import { schemaReason } from "./schema-reason";

type Time = Date | string;

/** What the runner knows when a run ends. Raw args and env go in; only redacted forms come out. */
export interface ReceiptInput {
  /** Receipt id; a random UUID when absent. */
  id?: string;
  /** When the receipt is sealed; now when absent. */
  issuedAt?: Time;
  run: { id: string; sessionId: string; userId: string; tool: string; actionClass?: string | null; caller?: CallerKind | null };
  /** The tool arguments as called. Redacted here (redactArgs): env values and secrets never get in. */
  args: unknown;
  /** The declared env of the run (session + call); only its keys are kept. Keys of `args.env` are added. */
  env?: Record<string, string> | readonly string[];
  script?: ReceiptFileHash | null;
  inputs?: readonly ReceiptFileHash[];
  outputs?: readonly ReceiptOutputHash[];
  outcome: RunOutcome;
  exitCode?: number | null;
  timing: { startedAt: Time; endedAt: Time; durationMs?: number; approvalWaitMs?: number | null };
  logs?: readonly ReceiptLog[];
  sandbox?: ReceiptSandbox | null;
  approvals?: ReadonlyArray<{ id: string; approvedBy: string; approvedAt: Time; sha256: string }>;
  /** A compete or review plan's winner and checks; other receipts carry no `plan` key at all. */
  plan?: ReceiptPlan | null;
}

/** Where a receipt sits in its ledger: seq 0 has prevDigest null, seq n has the digest of seq n-1. */
export interface ChainPosition {
  ledgerId: string;
  seq: number;
  prevDigest: string | null;
}

/** Builds and validates a receipt body; throws AppError(internal) naming the field when the input is bad. */
export function buildReceiptBody(input: ReceiptInput, position: ChainPosition): ReceiptBody {
  // The env's values are secrets the runner knows: masked wherever they appear in the args (a bash command, say).
  const args = redactArgs(input.args, input.env && !Array.isArray(input.env) ? Object.values(input.env as Record<string, string>) : []);
  const argsEnv = typeof args === "object" && args !== null && !Array.isArray(args) ? args["env"] : undefined;
  const startedAt = toIso(input.timing.startedAt);
  const endedAt = toIso(input.timing.endedAt);
  const candidate = {
    v: RECEIPT_VERSION,
    id: input.id ?? randomUUID(),
    ledgerId: position.ledgerId,
    seq: position.seq,
    prevDigest: position.prevDigest,
    issuedAt: toIso(input.issuedAt ?? new Date()),
    run: {
      id: input.run.id,
      sessionId: input.run.sessionId,
      userId: input.run.userId,
      tool: input.run.tool,
      actionClass: input.run.actionClass ?? null,
      caller: input.run.caller ?? null,
    },
    args,
    envKeys: [...new Set([...envKeys(input.env), ...envKeys(argsEnv)])].sort(),
    script: input.script ?? null,
    inputs: input.inputs ?? [],
    outputs: input.outputs ?? [],
    outcome: input.outcome,
    exitCode: input.exitCode ?? null,
    timing: {
      startedAt,
      endedAt,
      durationMs: input.timing.durationMs ?? Math.max(0, Date.parse(endedAt) - Date.parse(startedAt)),
      approvalWaitMs: input.timing.approvalWaitMs ?? null,
    },
    logs: input.logs ?? [],
    sandbox: input.sandbox ?? null,
    approvals: (input.approvals ?? []).map((a) => ({ ...a, approvedAt: toIso(a.approvedAt) })),
    ...(input.plan ? { plan: input.plan } : {}),
  };
  const parsed = ReceiptBodySchema.safeParse(candidate);
  if (!parsed.success) {
    throw new AppError({ code: "internal", message: `receipt body invalid: ${schemaReason(parsed.error.issues)}` });
  }
  return parsed.data;
}

// Dates and parseable strings become UTC ISO; anything else is left for the schema to name.
function toIso(value: Time): string {
  const time = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(time) ? String(value) : new Date(time).toISOString();
}
