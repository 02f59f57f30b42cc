import { MIN_MASKED_SECRET_CHARS, REDACTED } from "@berth/protocol";

const MASK = Buffer.from(REDACTED);

/**
 * Masks known secret values in a byte stream as it is written (GitHub Actions masks run logs the same
 * way). A chunk's last bytes that could begin a secret are held back until the next chunk (or flush)
 * shows whether they do, so a secret split across two chunks is still masked.
 */
export class SecretMaskStream {
  private readonly secrets: Buffer[];
  private readonly longest: number;
  private carry = Buffer.alloc(0);

  constructor(secrets: Iterable<string>) {
    const unique = new Set([...secrets].filter((s) => s.length >= MIN_MASKED_SECRET_CHARS && s !== REDACTED));
    this.secrets = [...unique].map((s) => Buffer.from(s)).sort((a, b) => b.length - a.length);
    this.longest = this.secrets[0]?.length ?? 0;
  }

  get active(): boolean {
    return this.secrets.length > 0;
  }

  /** The masked bytes that are safe to write now. */
  push(chunk: Buffer): Buffer {
    if (!this.active) return chunk;
    const masked = this.mask(this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk);
    const hold = this.heldBack(masked);
    this.carry = Buffer.from(masked.subarray(masked.length - hold));
    return masked.subarray(0, masked.length - hold);
  }

  /** What was held back, once the stream ends. */
  flush(): Buffer {
    const rest = this.carry;
    this.carry = Buffer.alloc(0);
    return rest;
  }

  private mask(data: Buffer): Buffer {
    let out = data;
    for (const secret of this.secrets) {
      let at = out.indexOf(secret);
      if (at === -1) continue;
      const parts: Buffer[] = [];
      let from = 0;
      while (at !== -1) {
        parts.push(out.subarray(from, at), MASK);
        from = at + secret.length;
        at = out.indexOf(secret, from);
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return out;
  }

  /** Length of the longest tail of `data` that is the start of some secret. */
  private heldBack(data: Buffer): number {
    for (let k = Math.min(this.longest - 1, data.length); k > 0; k--) {
      const tail = data.subarray(data.length - k);
      if (this.secrets.some((secret) => secret.length > k && secret.subarray(0, k).equals(tail))) return k;
    }
    return 0;
  }
}
