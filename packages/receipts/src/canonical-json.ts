import canonicalize from "canonicalize";

/**
 * RFC 8785 (JCS) canonical JSON: sorted keys, no whitespace, ECMAScript number form. Two parties that
 * hold the same JSON data get the same bytes, so a digest over them means the same thing to both.
 * `value` must be JSON data (what JSON.parse returns); undefined object members are omitted, as JCS does.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError(`canonicalJson: ${typeof value} is not JSON data`);
  return text;
}
