/** Length of the longest prefix of `buf` that ends on a whole UTF-8 character. */
export function utf8Boundary(buf: Buffer): number {
  let i = buf.length - 1;
  let continuation = 0;
  while (i >= 0 && continuation < 4 && (buf[i]! & 0xc0) === 0x80) {
    i--;
    continuation++;
  }
  if (i < 0) return buf.length;
  const lead = buf[i]!;
  const need = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return need > continuation ? i : buf.length;
}
