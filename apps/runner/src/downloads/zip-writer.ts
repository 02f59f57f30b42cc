import { crc32 } from "node:zlib";

/** Without zip64 every size and offset is 32-bit and the entry count 16-bit. */
export const ZIP_MAX_BYTES = 0xffff_ffff;
export const ZIP_MAX_ENTRIES = 0xffff;

export type ZipEntryKind = "file" | "directory" | "symlink";

export interface ZipEntry {
  /** Path inside the archive, `/`-separated; a directory's gets its trailing `/` here. */
  name: string;
  kind: ZipEntryKind;
  /** Unix permission bits (0o755); the file type bits are added from `kind`. */
  mode: number;
  mtime: Date;
}

/** The archive would pass what a zip without zip64 can hold. */
export class ZipLimitError extends Error {
  override readonly name = "ZipLimitError";
}

interface CentralRecord {
  name: Buffer;
  kind: ZipEntryKind;
  mode: number;
  dosTime: number;
  dosDate: number;
  crc: number;
  size: number;
  offset: number;
}

// Bit 3: sizes and CRC follow the data (a data descriptor), so nothing is buffered; bit 11: names are UTF-8.
const FLAGS = 0x0808;
const VERSION = 20;
/** Version made by: Unix (3), so extractors read the mode from the external attributes. */
const MADE_BY = (3 << 8) | VERSION;
const TYPE_BITS: Record<ZipEntryKind, number> = { file: 0o100000, directory: 0o040000, symlink: 0o120000 };

/** MS-DOS date and time (local time, two-second steps) as zip headers carry them; 1980 is the earliest. */
function dosDateTime(date: Date): { dosTime: number; dosDate: number } {
  const d = date.getFullYear() < 1980 ? new Date(1980, 0, 1) : date;
  return {
    dosTime: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    dosDate: ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/**
 * A store-only (uncompressed) zip written as a stream: each entry is a local header, its bytes as they come
 * (CRC32 computed on the way) and a data descriptor; the central directory follows the last entry. Nothing
 * but the central directory's small records is kept, so a folder of any size passes through in constant
 * memory. Past ZIP_MAX_BYTES or ZIP_MAX_ENTRIES it throws ZipLimitError before writing the offending record.
 */
export class ZipWriter {
  private readonly records: CentralRecord[] = [];
  private offset = 0;
  private current: CentralRecord | null = null;
  private finished = false;

  constructor(
    private readonly push: (chunk: Buffer) => void,
    /** Lower limits for tests; the format's own are the default. */
    private readonly limits: { maxBytes: number; maxEntries: number } = { maxBytes: ZIP_MAX_BYTES, maxEntries: ZIP_MAX_ENTRIES },
  ) {}

  /** Bytes written so far. */
  get bytes(): number {
    return this.offset;
  }

  startEntry(entry: ZipEntry): void {
    if (this.finished) throw new Error("zip: startEntry after finish");
    if (this.current) this.endEntry();
    if (this.records.length >= this.limits.maxEntries)
      throw new ZipLimitError(`zip: more than ${this.limits.maxEntries} entries (zip64 is not written); at ${JSON.stringify(entry.name)}`);
    const name = Buffer.from(entry.kind === "directory" && !entry.name.endsWith("/") ? `${entry.name}/` : entry.name, "utf8");
    if (name.length > 0xffff) throw new ZipLimitError(`zip: entry name of ${name.length} bytes is over 65535`);
    const record: CentralRecord = { name, kind: entry.kind, mode: entry.mode & 0o7777, ...dosDateTime(entry.mtime), crc: 0, size: 0, offset: this.offset };
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(VERSION, 4);
    header.writeUInt16LE(FLAGS, 6);
    header.writeUInt16LE(0, 8); // stored
    header.writeUInt16LE(record.dosTime, 10);
    header.writeUInt16LE(record.dosDate, 12);
    // CRC and sizes (14..25) are zero here: the data descriptor carries them.
    header.writeUInt16LE(name.length, 26);
    header.writeUInt16LE(0, 28);
    this.emit(Buffer.concat([header, name]));
    this.current = record;
  }

  /** The current entry's bytes (a symlink's are its target). */
  write(data: Buffer): void {
    const entry = this.current;
    if (!entry) throw new Error("zip: write outside an entry");
    if (data.length === 0) return;
    entry.crc = crc32(data, entry.crc);
    entry.size += data.length;
    this.emit(data);
  }

  endEntry(): void {
    const entry = this.current;
    if (!entry) return;
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(entry.crc >>> 0, 4);
    descriptor.writeUInt32LE(entry.size, 8);
    descriptor.writeUInt32LE(entry.size, 12);
    this.emit(descriptor);
    this.records.push(entry);
    this.current = null;
  }

  /** Writes the central directory and its end record; the archive is complete after this. */
  finish(): void {
    if (this.finished) return;
    this.endEntry();
    const start = this.offset;
    for (const r of this.records) {
      const header = Buffer.alloc(46);
      header.writeUInt32LE(0x02014b50, 0);
      header.writeUInt16LE(MADE_BY, 4);
      header.writeUInt16LE(VERSION, 6);
      header.writeUInt16LE(FLAGS, 8);
      header.writeUInt16LE(0, 10);
      header.writeUInt16LE(r.dosTime, 12);
      header.writeUInt16LE(r.dosDate, 14);
      header.writeUInt32LE(r.crc >>> 0, 16);
      header.writeUInt32LE(r.size, 20);
      header.writeUInt32LE(r.size, 24);
      header.writeUInt16LE(r.name.length, 28);
      // Extra field, comment, disk number and internal attributes (30..37) stay zero.
      const dosAttributes = r.kind === "directory" ? 0x10 : 0;
      header.writeUInt32LE((((TYPE_BITS[r.kind] | r.mode) << 16) | dosAttributes) >>> 0, 38);
      header.writeUInt32LE(r.offset, 42);
      this.emit(Buffer.concat([header, r.name]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.records.length, 8);
    end.writeUInt16LE(this.records.length, 10);
    end.writeUInt32LE(this.offset - start, 12);
    end.writeUInt32LE(start, 16);
    this.emit(end);
    this.finished = true;
  }

  private emit(chunk: Buffer): void {
    // Every size and offset is at most the archive's length, so this one check keeps them all 32-bit.
    if (this.offset + chunk.length > this.limits.maxBytes)
      throw new ZipLimitError(`zip: the archive would pass ${this.limits.maxBytes} bytes (zip64 is not written)`);
    this.offset += chunk.length;
    this.push(chunk);
  }
}
