/**
 * RFC 8785 (JCS) canonical JSON for JSON data: object keys sorted by UTF-16 code units (the default
 * sort), no whitespace, strings and numbers as JSON.stringify writes them (the ECMAScript forms JCS
 * specifies), members whose value is undefined left out, undefined array items as null. Two parties that
 * hold the same data get the same bytes, so a digest over them means the same to both: receipts, approval
 * texts, the loop guard and MCP schema pins all use this one. Anything that is not JSON data (undefined,
 * NaN, Infinity, a function) is refused.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not JSON data`);
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`canonicalJson: ${typeof value} is not JSON data`);
    return text;
  }
  const withJson = value as { toJSON?: unknown };
  if (typeof withJson.toJSON === "function") return canonicalJson((withJson.toJSON as () => unknown)());
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .filter((key) => record[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(",")}}`;
}
