import { LogReader, type LogStream } from "../runs/run-logs";

/** One read of the log, and the most a catch-up event carries: large frames cost each client less per byte. */
export const LOG_BLOCK = 512 * 1024;
/** Blocks kept for the followers catching up behind one another: 8 MiB per followed log at most. */
export const KEPT_BLOCKS = 16;

interface Block {
  /** LOG_BLOCK bytes; the first `length` are the log's, the rest are filled as the log grows. */
  readonly bytes: Buffer;
  length: number;
}

/**
 * One log's bytes for the followers catching up in it, read through one kept-open handle in LOG_BLOCK-aligned
 * blocks shared by all of them: a block is read once, and every follower that passes it is sent a view of the same
 * Buffer (no read and no copy per follower). A block at the live end is read on into the same Buffer as the log
 * grows; what is in it never changes (a log is append-only), so views already sent stay exact. The last
 * KEPT_BLOCKS used are kept; a follower further behind reads its block again, so memory stays bounded.
 */
export class LogBlocks {
  private reader: LogReader | null = null;
  /** By block index, least recently used first. */
  private readonly blocks = new Map<number, Block>();

  constructor(private readonly source: { dataDir: string; runId: string; stream: LogStream }) {}

  /** The log's bytes from `offset` to the end of its block or of what is readable now; empty at the end. */
  at(offset: number): Buffer {
    const index = Math.floor(offset / LOG_BLOCK);
    const start = index * LOG_BLOCK;
    let block = this.blocks.get(index);
    if (block) this.blocks.delete(index);
    else block = { bytes: Buffer.allocUnsafe(LOG_BLOCK), length: 0 };
    // Read on only when the follower is past what the block holds: the bytes before it are already there.
    if (offset >= start + block.length && block.length < LOG_BLOCK) {
      this.reader ??= LogReader.open(this.source.dataDir, this.source.runId, this.source.stream);
      block.length += this.reader.read(start + block.length, block.bytes.subarray(block.length));
    }
    if (block.length > 0) this.blocks.set(index, block);
    for (const [oldest] of this.blocks) {
      if (this.blocks.size <= KEPT_BLOCKS) break;
      this.blocks.delete(oldest);
    }
    return block.bytes.subarray(Math.min(offset - start, block.length), block.length);
  }

  /** Lets go of the handle and the blocks (no follower left); `at` opens it again if one comes. */
  close(): void {
    this.reader?.close();
    this.reader = null;
    this.blocks.clear();
  }
}
