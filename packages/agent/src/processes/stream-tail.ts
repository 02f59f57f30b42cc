/**
 * The last `capacity` bytes of a stream and how many bytes it had in all, kept by copying each chunk into a ring of
 * its own. It holds no reference to a chunk, so a reader may fill the same buffer again as soon as `push` returns
 * (run_script's output buffers are lent, lent-output.ts); a chunk larger than the ring costs one copy of its end.
 */
export class StreamTail {
  private readonly ring: Buffer;
  /** Where the next byte goes; once the ring has wrapped, also where the oldest kept byte is. */
  private at = 0;
  total = 0;

  constructor(capacity: number) {
    this.ring = Buffer.alloc(capacity);
  }

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    const capacity = this.ring.length;
    if (capacity === 0) return;
    const bytes = chunk.length > capacity ? chunk.subarray(chunk.length - capacity) : chunk;
    const first = Math.min(bytes.length, capacity - this.at);
    this.ring.set(bytes.subarray(0, first), this.at);
    if (first < bytes.length) this.ring.set(bytes.subarray(first), 0);
    this.at = (this.at + bytes.length) % capacity;
  }

  /** The bytes kept, oldest first (at most `capacity`). */
  bytes(): Buffer {
    const capacity = this.ring.length;
    if (this.total < capacity) return Buffer.from(this.ring.subarray(0, this.total));
    return Buffer.concat([this.ring.subarray(this.at), this.ring.subarray(0, this.at)], capacity);
  }

  /**
   * The kept bytes as text, starting on a whole UTF-8 character: continuation bytes at the start (at most three,
   * a character cut by the ring's edge) are dropped when the stream was longer than what is kept.
   */
  text(): string {
    const bytes = this.bytes();
    let start = 0;
    if (this.total > bytes.length) {
      while (start < bytes.length && start < 3 && ((bytes[start] as number) & 0xc0) === 0x80) start++;
    }
    return bytes.subarray(start).toString("utf8");
  }
}
