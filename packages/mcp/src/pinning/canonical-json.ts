/**
 * Canonical JSON (sorted object keys, no whitespace, `undefined` members dropped) so the same schema
 * always hashes the same whatever order a server happens to emit its keys in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    // JSON has no undefined / function / symbol; treat them as null like JSON.stringify does in arrays.
    const text = JSON.stringify(value);
    return text === undefined ? "null" : text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}
