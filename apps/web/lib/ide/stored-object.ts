/**
 * What browser storage held, as an object to check field by field, or null when it held nothing, not JSON,
 * or JSON that is not an object. Storage is anyone's to edit or corrupt, so nothing read is trusted.
 */
export function storedObject(raw: string | null): Record<string, unknown> | null {
  if (!raw) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
}
