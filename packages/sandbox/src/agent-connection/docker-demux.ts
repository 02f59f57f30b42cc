/** Docker's multiplexed attach stream (Tty false): each frame is [stream type, 0, 0, 0, length u32 BE] then its bytes. */
const HEADER_BYTES = 8;

/**
 * Splits a container's attached stream into its stdout and stderr as modem.demuxStream does, without copying:
 * each frame's bytes go on as views of the chunks they came in, however the frames are cut. (demuxStream joins
 * every read onto what it holds and copies the rest after each frame: three copies of every byte of output.)
 * A frame header with an unknown stream type means the stream is not multiplexed (or lost its place): from
 * there on it passes through to stdout as is, like demuxStream.
 */
export function demuxDockerStream(source: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): void {
  let header: Buffer | null = null;
  let remaining = 0;
  let target: NodeJS.WritableStream | null = null;
  let raw = false;
  source.on("data", (data: Buffer | string) => {
    const chunk = typeof data === "string" ? Buffer.from(data) : data;
    if (raw) return void stdout.write(chunk);
    let at = 0;
    while (at < chunk.length) {
      if (remaining > 0) {
        const take = Math.min(remaining, chunk.length - at);
        target?.write(chunk.subarray(at, at + take));
        at += take;
        remaining -= take;
        continue;
      }
      const need = HEADER_BYTES - (header?.length ?? 0);
      if (chunk.length - at < need) {
        header = header ? Buffer.concat([header, chunk.subarray(at)]) : Buffer.from(chunk.subarray(at));
        return;
      }
      const head: Buffer = header ? Buffer.concat([header, chunk.subarray(at, at + need)]) : chunk.subarray(at, at + HEADER_BYTES);
      header = null;
      const type = head[0];
      if (type !== 0 && type !== 1 && type !== 2) {
        raw = true;
        stdout.write(Buffer.concat([head, chunk.subarray(at + need)]));
        return;
      }
      at += need;
      target = type === 1 ? stdout : type === 2 ? stderr : null;
      remaining = head.readUInt32BE(4);
    }
  });
}
