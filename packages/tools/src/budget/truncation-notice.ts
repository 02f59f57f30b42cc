/** What a truncated result's one notice line says. */
export interface TruncationFacts {
  ref: string;
  shownBytes: number;
  totalBytes: number;
  /** Why it was cut: the tool's cap, or what was left of the turn's pool. */
  limit: string;
}

/** The `context` call that reads the rest. */
export function recallHint(ref: string, offset = 0): string {
  return `context ${JSON.stringify({ scope: "recall", ref, ...(offset > 0 ? { offset } : {}) })}`;
}

/**
 * The single line every truncated tool result carries (as its `notice` field, the result being JSON that
 * must still parse): the ref, the bytes shown of the total, and the call that reads the rest.
 */
export function truncationNotice(facts: TruncationFacts): string {
  return `truncated: showed ${facts.shownBytes} of ${facts.totalBytes} bytes (${facts.limit}); ref=${facts.ref}; next: ${recallHint(facts.ref)}`;
}

/** Finds the notice a result carries, for tests and clients: the `notice` field of its JSON text. */
export function noticeOf(output: string): string | undefined {
  try {
    const parsed = JSON.parse(output) as { notice?: unknown };
    return typeof parsed.notice === "string" ? parsed.notice : undefined;
  } catch {
    return undefined;
  }
}
