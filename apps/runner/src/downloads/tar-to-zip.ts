import { Transform, type TransformCallback } from "node:stream";
import { ZipWriter, type ZipEntryKind } from "./zip-writer";

const BLOCK = 512;
/** Longest name, link target or pax header block read into memory (names are short; a header is records). */
const META_MAX_BYTES = 1024 * 1024;

interface TarHeader {
  name: string;
  linkName: string;
  size: number;
  mode: number;
  mtime: Date;
  type: string;
}

/** A tar number field: octal text, or GNU base-256 when its first byte has the high bit set. */
function tarNumber(field: Buffer): number {
  if (field[0]! & 0x80) {
    let value = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i]!;
    return value;
  }
  const text = field.toString("latin1").replace(/\0.*$/s, "").trim();
  return text ? parseInt(text, 8) : 0;
}

const cString = (field: Buffer): string => {
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString("utf8");
};

function parseHeader(block: Buffer): TarHeader {
  const magic = block.subarray(257, 263).toString("latin1");
  const prefix = magic.startsWith("ustar") && magic !== "ustar " ? cString(block.subarray(345, 500)) : "";
  const name = cString(block.subarray(0, 100));
  return {
    name: prefix ? `${prefix}/${name}` : name,
    linkName: cString(block.subarray(157, 257)),
    size: tarNumber(block.subarray(124, 136)),
    mode: tarNumber(block.subarray(100, 108)),
    mtime: new Date(tarNumber(block.subarray(136, 148)) * 1000),
    type: String.fromCharCode(block[156] || 0x30),
  };
}

/** `path` and `linkpath` of a pax extended header (records `<len> <key>=<value>\n`). */
function parsePax(data: Buffer): { path?: string; linkpath?: string } {
  const out: { path?: string; linkpath?: string } = {};
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space === -1) break;
    const length = Number(data.subarray(at, space).toString("latin1"));
    if (!Number.isInteger(length) || length <= 0) break;
    const record = data.subarray(space + 1, at + length - 1).toString("utf8");
    const eq = record.indexOf("=");
    const key = record.slice(0, eq);
    if (key === "path" || key === "linkpath") out[key] = record.slice(eq + 1);
    at += length;
  }
  return out;
}

type Sink = { to: "entry" } | { to: "skip" } | { to: "meta"; type: "L" | "K" | "x"; parts: Buffer[] };

const ENTRY_KIND: Record<string, ZipEntryKind | undefined> = { "0": "file", "7": "file", "5": "directory", "2": "symlink" };

/**
 * A tar stream in, the same files as a zip out (ZipWriter: stored, streamed), for `?format=zip` downloads:
 * the container makes the tar (`tar -cf -`, GNU or pax long names), this turns it around entry by entry with
 * no entry held in memory, so the download keeps the stream's backpressure. Names lose a leading `./`; the
 * archive's root (`.`) is no entry. Devices and FIFOs are left out (zip has no way to hold them); hard links
 * must come as copies (`tar --hard-dereference`). A tar that ends before its end blocks fails the stream.
 */
export class TarToZip extends Transform {
  private readonly zip = new ZipWriter((chunk) => this.push(chunk));
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /**
   * What the next bytes are: a header block, or `left` bytes of data (a file's, for the zip; a long name or
   * pax header, gathered; anything else, skipped) and the padding to the next block; then nothing.
   */
  private state: { kind: "header" } | { kind: "data"; left: number; pad: number; sink: Sink } | { kind: "end" } = { kind: "header" };
  private longName: string | undefined;
  private longLink: string | undefined;
  private zeroBlocks = 0;
  /** Entries written, for the caller's count. */
  entries = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.consume(chunk);
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    if (this.state.kind !== "end" && this.zeroBlocks === 0) {
      callback(new Error(`tar ended early: ${this.state.kind === "data" ? `${this.state.left} bytes of an entry missing` : "no end-of-archive blocks"}`));
      return;
    }
    try {
      this.zip.finish();
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  private consume(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0) {
      const state = this.state;
      if (state.kind === "end") return;
      if (state.kind === "data") {
        if (state.left > 0) {
          const take = rest.subarray(0, Math.min(rest.length, state.left));
          rest = rest.subarray(take.length);
          state.left -= take.length;
          const sink = state.sink;
          if (sink.to === "meta") sink.parts.push(Buffer.from(take));
          else if (sink.to === "entry") this.zip.write(take);
          if (state.left > 0) continue;
          if (sink.to === "meta") this.endMeta(sink.type, Buffer.concat(sink.parts));
          else if (sink.to === "entry") this.zip.endEntry();
        }
        const skip = Math.min(rest.length, state.pad);
        rest = rest.subarray(skip);
        state.pad -= skip;
        if (state.pad === 0) this.state = { kind: "header" };
        continue;
      }
      // A header: gather one whole block first.
      const need = BLOCK - this.pendingBytes;
      const take = rest.subarray(0, need);
      rest = rest.subarray(take.length);
      this.pending.push(take);
      this.pendingBytes += take.length;
      if (this.pendingBytes < BLOCK) return;
      const block = Buffer.concat(this.pending);
      this.pending = [];
      this.pendingBytes = 0;
      this.onHeader(block);
    }
  }

  private onHeader(block: Buffer): void {
    if (block.every((b) => b === 0)) {
      // Two zero blocks end the archive (GNU tar may pad more after them).
      if (++this.zeroBlocks >= 2) this.state = { kind: "end" };
      return;
    }
    this.zeroBlocks = 0;
    const header = parseHeader(block);
    const pad = (BLOCK - (header.size % BLOCK)) % BLOCK;
    if (header.type === "L" || header.type === "K" || header.type === "x") {
      if (header.size > META_MAX_BYTES) throw new Error(`tar: a ${header.type} header of ${header.size} bytes is over ${META_MAX_BYTES}`);
      this.state = { kind: "data", left: header.size, pad, sink: { to: "meta", type: header.type, parts: [] } };
      if (header.size === 0) this.endMeta(header.type, Buffer.alloc(0));
      return;
    }
    const name = (this.longName ?? header.name).replace(/^(\.\/)+/, "").replace(/^\.$/, "");
    const linkName = this.longLink ?? header.linkName;
    this.longName = undefined;
    this.longLink = undefined;
    const kind = ENTRY_KIND[header.type];
    if (kind === undefined && header.type === "1")
      throw new Error(`tar: ${JSON.stringify(name)} is a hard link; the archive must be made with --hard-dereference`);
    // Global pax headers, devices, FIFOs: their data (if any) is skipped.
    const entry = kind !== undefined && name !== "";
    if (entry) {
      this.zip.startEntry({ name, kind, mode: header.mode, mtime: header.mtime });
      this.entries++;
      if (kind === "symlink") this.zip.write(Buffer.from(linkName, "utf8"));
    }
    const carries = kind === "file" && entry;
    if (entry && (!carries || header.size === 0)) this.zip.endEntry();
    this.state = { kind: "data", left: header.size, pad, sink: carries ? { to: "entry" } : { to: "skip" } };
  }

  private endMeta(type: "L" | "K" | "x", data: Buffer): void {
    if (type === "L") this.longName = cString(data);
    else if (type === "K") this.longLink = cString(data);
    else {
      const pax = parsePax(data);
      if (pax.path !== undefined) this.longName = pax.path;
      if (pax.linkpath !== undefined) this.longLink = pax.linkpath;
    }
  }
}
