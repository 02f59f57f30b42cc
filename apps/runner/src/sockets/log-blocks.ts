import { LogReader, type LogStream } from "../runs/run-logs";

/** One read of the log, and the most a catch-up event carries: large frames cost each client less per byte. */
export const LOG_BLOCK = 512 * 1024;
/** Blocks kept for the followers catching up behind one another: 8 MiB per followed log at most. */
export const KEPT_BLOCKS = 16;
/** Let-go blocks remembered (weakly) before the forgotten ones are swept from the list. */
const RELEASED_SWEEP = 4 * KEPT_BLOCKS;
/** Written-out blocks' memory kept for the next blocks read: as many as are kept. */
const SPARE_BLOCKS = KEPT_BLOCKS;

/**
 * A block's memory and what it holds. Opaque outside LogBlocks: a follower lends one (`lend`) for each view of it it
 * hands to a connection and gives it back (`giveBack`) once the connection has written that view out.
 */
export interface Block {
  readonly index: number;
  /** LOG_BLOCK bytes; the first `length` are the log's, the rest are filled as the log grows. */
  readonly bytes: Buffer;
  length: number;
  /** Views of it handed to connections and not yet written out. */
  lent: number;
  /** A view of it went where its writing out is not seen (`untrack`): its memory is never reused, the GC frees it. */
  untracked: boolean;
}

/** A block let go of: its memory, for as long as a view of it is still queued for some follower, and what it held. */
interface Released {
  memory: WeakRef<ArrayBuffer>;
  byteOffset: number;
  length: number;
}

/**
 * One log's bytes for the followers catching up in it, read through one kept-open handle in LOG_BLOCK-aligned
 * blocks shared by all of them: a block is read once, and every follower that passes it is sent a view of the same
 * Buffer (no read and no copy per follower). A block at the live end is read on into the same Buffer as the log
 * grows; what is in it never changes (a log is append-only), so views already sent stay exact. The last
 * KEPT_BLOCKS used are kept; one let go of is taken back while a view of it is still queued for a follower that is
 * slower than the rest, so followers spread over more than the kept blocks do not read the same bytes into a new
 * Buffer each (50 followers of a 100 MB run read 5.4 times its bytes that way).
 *
 * A block's memory is reused for the next block read once it is let go of and every view lent out of it has been
 * written out (its followers give it back), instead of being left to the GC: 100 MB to 50 clients otherwise made
 * 100 MB of 512 KiB Buffers the runner's RSS carried until a collection. A view that went where its writing out is
 * not seen (a follower stopped with it queued, a transport other than WebSocket) leaves its block to the GC: held
 * weakly once let go of, taken back while a view is alive, read again once freed.
 */
export class LogBlocks {
  private reader: LogReader | null = null;
  /** By block index, least recently used first. */
  private readonly blocks = new Map<number, Block>();
  /** By block index: blocks let go of with views lent out, until they are given back. */
  private readonly lentOut = new Map<number, Block>();
  /** By block index: untracked blocks let go of, held weakly. */
  private readonly released = new Map<number, Released>();
  /** Memory of blocks let go of and written out, for the next blocks read. */
  private readonly spare: Buffer[] = [];

  constructor(private readonly source: { dataDir: string; runId: string; stream: LogStream }) {}

  /** The log's bytes from `offset` to the end of its block or of what is readable now; empty at the end. */
  at(offset: number): Buffer {
    const block = this.blockAt(offset);
    const start = block.index * LOG_BLOCK;
    return block.bytes.subarray(Math.min(offset - start, block.length), block.length);
  }

  /** The block `at(offset)` just gave a view of, lent once more: its memory is not reused until it is given back. */
  lend(offset: number): Block {
    const block = this.blocks.get(Math.floor(offset / LOG_BLOCK));
    if (!block) throw new Error(`no block holds offset ${offset}: lend right after at()`);
    block.lent++;
    return block;
  }

  /** One lent view of `block` written out; the last one frees its memory for the next block if it was let go of. */
  giveBack(block: Block): void {
    block.lent--;
    if (block.lent > 0 || block.untracked || this.blocks.get(block.index) === block) return;
    this.lentOut.delete(block.index);
    this.spareOf(block);
  }

  /** One lent view of `block` whose writing out will not be seen: the block is left to the GC from now on. */
  untrack(block: Block): void {
    block.lent--;
    block.untracked = true;
    if (this.lentOut.get(block.index) !== block) return;
    this.lentOut.delete(block.index);
    this.releaseWeakly(block);
  }

  /** Lets go of the handle and the blocks (no follower left); `at` opens it again if one comes. */
  close(): void {
    this.reader?.close();
    this.reader = null;
    this.blocks.clear();
    this.lentOut.clear();
    this.released.clear();
    this.spare.length = 0;
  }

  private blockAt(offset: number): Block {
    const index = Math.floor(offset / LOG_BLOCK);
    const start = index * LOG_BLOCK;
    let block = this.blocks.get(index);
    if (block) this.blocks.delete(index);
    else block = this.takeBack(index) ?? { index, bytes: this.spare.pop() ?? Buffer.allocUnsafe(LOG_BLOCK), length: 0, lent: 0, untracked: false };
    // Read on only when the follower is past what the block holds: the bytes before it are already there.
    if (offset >= start + block.length && block.length < LOG_BLOCK) {
      this.reader ??= LogReader.open(this.source.dataDir, this.source.runId, this.source.stream);
      block.length += this.reader.read(start + block.length, block.bytes.subarray(block.length));
    }
    if (block.length > 0) this.blocks.set(index, block);
    else if (!block.untracked && block.lent === 0) this.spareOf(block);
    for (const [oldest, kept] of this.blocks) {
      if (this.blocks.size <= KEPT_BLOCKS) break;
      this.blocks.delete(oldest);
      this.release(kept);
    }
    return block;
  }

  /** A block let go of that is still alive, as it was: lent out (held), or untracked and not yet freed (weak). */
  private takeBack(index: number): Block | null {
    const lent = this.lentOut.get(index);
    if (lent) {
      this.lentOut.delete(index);
      return lent;
    }
    const released = this.released.get(index);
    if (!released) return null;
    this.released.delete(index);
    const memory = released.memory.deref();
    return memory ? { index, bytes: Buffer.from(memory, released.byteOffset, LOG_BLOCK), length: released.length, lent: 0, untracked: true } : null;
  }

  private release(block: Block): void {
    if (block.untracked) this.releaseWeakly(block);
    else if (block.lent > 0) this.lentOut.set(block.index, block);
    else this.spareOf(block);
  }

  private spareOf(block: Block): void {
    if (this.spare.length < SPARE_BLOCKS) this.spare.push(block.bytes);
  }

  private releaseWeakly(block: Block): void {
    this.released.set(block.index, {
      memory: new WeakRef(block.bytes.buffer as ArrayBuffer),
      byteOffset: block.bytes.byteOffset,
      length: block.length,
    });
    if (this.released.size <= RELEASED_SWEEP) return;
    for (const [i, released] of this.released) if (!released.memory.deref()) this.released.delete(i);
  }
}
