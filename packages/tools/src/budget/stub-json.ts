const byteLength = (text: string): number => Buffer.byteLength(text, "utf8");

/**
 * An object too large to show, cut to at most `maxBytes` of JSON that still parses and keeps its shape:
 * the largest top-level array keeps its first items, or the largest string its first characters (at a line
 * end where one is near), so a client that validates the tool's outputSchema still can. `extra(shownBytes)`
 * adds the fields that say so (the notice); `truncated: true` is set where the object has that flag. Null when
 * not even an empty cut fits (the caller then sends a bare stub).
 */
export function stubJson(
  details: Record<string, unknown>,
  maxBytes: number,
  extra: (shownBytes: number) => Record<string, unknown>,
): { stub: Record<string, unknown>; text: string } | null {
  const key = largestCuttable(details);
  if (key === undefined) return null;
  const value = details[key] as unknown[] | string;
  const build = (n: number) => {
    const cut = typeof value === "string" ? cutString(value, n) : value.slice(0, n);
    const body: Record<string, unknown> = {
      ...details,
      [key]: cut,
      ...(typeof details.truncated === "boolean" ? { truncated: true } : {}),
    };
    return withExtra(body, extra);
  };
  // The most items (or characters) that fit: sizes grow with n, so a binary search finds it.
  let low = 0;
  let high = value.length - 1;
  if (byteLength(build(0).text) > maxBytes) return null;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (byteLength(build(mid).text) <= maxBytes) low = mid;
    else high = mid - 1;
  }
  return build(low);
}

/** `extra` states the bytes shown, which its own digits change: settle on the figure that is true. */
export function withExtra(
  body: Record<string, unknown>,
  extra: (shownBytes: number) => Record<string, unknown>,
): { stub: Record<string, unknown>; text: string } {
  let shown = byteLength(JSON.stringify(body));
  for (let round = 0; round < 4; round++) {
    const stub = { ...body, ...extra(shown) };
    const text = JSON.stringify(stub);
    if (byteLength(text) === shown || round === 3) return { stub, text };
    shown = byteLength(text);
  }
  /* c8 ignore next */
  throw new Error("unreachable");
}

function largestCuttable(details: Record<string, unknown>): string | undefined {
  let best: string | undefined;
  let bestSize = -1;
  for (const [key, value] of Object.entries(details)) {
    if (!(typeof value === "string" || Array.isArray(value)) || value.length === 0) continue;
    const size = byteLength(JSON.stringify(value));
    if (size > bestSize) {
      best = key;
      bestSize = size;
    }
  }
  return best;
}

/** The first `n` characters, back to the last line end when one is within the last quarter; never half a surrogate pair. */
function cutString(text: string, n: number): string {
  let end = n;
  if (end > 0 && end < text.length && /[\uDC00-\uDFFF]/.test(text[end]!)) end--;
  const cut = text.slice(0, end);
  const newline = cut.lastIndexOf("\n");
  return newline >= 0 && newline >= end * 0.75 ? cut.slice(0, newline + 1) : cut;
}
