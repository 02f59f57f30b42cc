import { LogReader, type LogStream } from "../runs/run-logs";

/** One read of the log, and the most a catch-up event carries: large frames cost each client less per byte. */
export const LOG_BLOCK = 512 * 1024;
/** Blocks kept for the followers catching up behind one another: 8 MiB per followed log at most. */
export const KEPT_BLOCKS = 16;
/** Let-go blocks remembered (weakly) before the forgotten ones are swept from the list. */
const RELEASED_SWEEP = 4 * KEPT_BLOCKS;

interface Block {
  /** LOG_BLOCK bytes; the first `length` are the log's, the rest are filled as the log grows. */
  readonly bytes: Buffer;
  length: number;
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
 * KEPT_BLOCKS used are kept; one let go of is taken back while a view of it is still alive (queued for a
 * follower that is slower than the rest), so followers spread over more than the kept blocks do not read the
 * same bytes into a new Buffer each (50 followers of a 100 MB run read 5.4 times its bytes that way); once
 * nothing holds it any more the GC frees it, and a follower that far behind reads it again.
 */
export class LogBlocks {
  private reader: LogReader | null = null;
  /** By block index, least recently used first. */
  private readonly blocks = new Map<number, Block>();
  /** By block index: blocks let go of, held weakly. */
  private readonly released = new Map<number, Released>();

  constructor(private readonly source: { dataDir: string; runId: string; stream: LogStream }) {}

  /** The log's bytes from `offset` to the end of its block or of what is readable now; empty at the end. */
  at(offset: number): Buffer {
    const index = Math.floor(offset / LOG_BLOCK);
    const start = index * LOG_BLOCK;
    let block = this.blocks.get(index);
    if (block) this.blocks.delete(index);
    else block = this.takeBack(index) ?? { bytes: Buffer.allocUnsafe(LOG_BLOCK), length: 0 };
    // Read on only when the follower is past what the block holds: the bytes before it are already there.
    if (offset >= start + block.length && block.length < LOG_BLOCK) {
      this.reader ??= LogReader.open(this.source.dataDir, this.source.runId, this.source.stream);
      block.length += this.reader.read(start + block.length, block.bytes.subarray(block.length));
    }
    if (block.length > 0) this.blocks.set(index, block);
    for (const [oldest, kept] of this.blocks) {
      if (this.blocks.size <= KEPT_BLOCKS) break;
      this.blocks.delete(oldest);
      this.release(oldest, kept);
    }
    return block.bytes.subarray(Math.min(offset - start, block.length), block.length);
  }

  /** Lets go of the handle and the blocks (no follower left); `at` opens it again if one comes. */
  close(): void {
    this.reader?.close();
    this.reader = null;
    this.blocks.clear();
    this.released.clear();
  }

  /** A block let go of whose memory is still alive, as it was. */
  private takeBack(index: number): Block | null {
    const released = this.released.get(index);
    if (!released) return null;
    this.released.delete(index);
    const memory = released.memory.deref();
    return memory ? { bytes: Buffer.from(memory, released.byteOffset, LOG_BLOCK), length: released.length } : null;
  }

  private release(index: number, block: Block): void {
    this.released.set(index, {
      memory: new WeakRef(block.bytes.buffer as ArrayBuffer),
      byteOffset: block.bytes.byteOffset,
      length: block.length,
    });
    if (this.released.size <= RELEASED_SWEEP) return;
    for (const [i, released] of this.released) if (!released.memory.deref()) this.released.delete(i);
  }
}
