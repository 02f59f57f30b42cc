/**
 * Length of the longest prefix of `bytes` that ends on a whole UTF-8 character: where to cut output so a
 * character is never split across two pieces (the runner's chunks and events, the IDE's streamed log reads).
 */
export function utf8Boundary(bytes: Uint8Array): number {
  let i = bytes.length - 1;
  let continuation = 0;
  while (i >= 0 && continuation < 4 && (bytes[i]! & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  if (i < 0) return bytes.length;
  const lead = bytes[i]!;
  const need = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return need > continuation ? i : bytes.length;
}
