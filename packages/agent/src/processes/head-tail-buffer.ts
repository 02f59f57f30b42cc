/**
 * Keeps the first `headCap` and the last `tailCap` bytes of a stream, counting what falls between, so a
 * command that prints gigabytes costs bounded memory and still shows how it started and how it ended.
 */
export class HeadTailBuffer {
  private readonly head: Buffer[] = [];
  private headLength = 0;
  private tail: Buffer[] = [];
  private tailLength = 0;
  total = 0;

  constructor(
    private readonly headCap: number,
    private readonly tailCap: number,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headLength < this.headCap) {
      const take = Math.min(chunk.length, this.headCap - this.headLength);
      this.head.push(chunk.subarray(0, take));
      this.headLength += take;
      chunk = chunk.subarray(take);
    }
    if (chunk.length === 0 || this.tailCap === 0) return;
    this.tail.push(chunk);
    this.tailLength += chunk.length;
    // Drop whole chunks that lie entirely before the kept tail.
    while (this.tail.length > 1 && this.tailLength - (this.tail[0] as Buffer).length >= this.tailCap) {
      this.tailLength -= (this.tail.shift() as Buffer).length;
    }
  }

  /** The bytes kept at the end (at most tailCap). */
  tailBytes(): Buffer {
    const joined = Buffer.concat(this.tail);
    return joined.subarray(Math.max(0, joined.length - this.tailCap));
  }

  get truncatedBytes(): number {
    return this.total - this.headLength - this.tailBytes().length;
  }

  toString(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = this.tailBytes().toString("utf8");
    const dropped = this.truncatedBytes;
    return dropped > 0 ? `${head}\n[... ${dropped} bytes truncated ...]\n${tail}` : head + tail;
  }
}
