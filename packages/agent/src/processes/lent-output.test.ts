import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LENT_BUFFER_BYTES, LentOutputReader, MAX_LENT_BYTES, MAX_LENT_CHUNKS } from "./lent-output";
import { type OutputFifo, OutputFifoSupply, makeOutputFifos, outputFifoSupply } from "./output-fifos";
import { runInGroup, sleep } from "./process-group";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "berth-lent-output-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const CHUNK = 64 * 1024;
/** A child writing `chunks` distinct 64 KiB blocks to the FIFO's write end (its stdout), as fast as it may. */
async function writer(chunks: number) {
  const [fifo] = await makeOutputFifos(path.join(dir, "state"), 1);
  if (!fifo) throw new Error("no fifo");
  const program = `const b = Buffer.alloc(${CHUNK}); for (let i = 0; i < ${chunks}; i++) { b.fill(i % 251); require("fs").writeSync(1, b); }`;
  const child = spawn(process.execPath, ["-e", program], { stdio: ["ignore", fifo.writeFd, "inherit"] });
  closeSync(fifo.writeFd);
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const expected = createHash("sha256");
  for (let i = 0; i < chunks; i++) expected.update(Buffer.alloc(CHUNK, i % 251));
  return { readFd: fifo.readFd, exited, sha256: expected.digest("hex") };
}

/** A consumer that copies what it is lent (as a frame's write would send it) and gives buffers back only when told. */
function fakeWriter() {
  const held: (() => void)[] = [];
  const hash = createHash("sha256");
  const lent = new Set<ArrayBufferLike>();
  const stats = { chunks: 0, bytes: 0, heldBytes: 0, maxHeld: 0, maxHeldBytes: 0, reused: 0 };
  const seen = new Set<ArrayBufferLike>();
  return {
    stats,
    onChunk(chunk: Buffer, release: () => void) {
      // A buffer is never handed out twice at once.
      expect(lent.has(chunk.buffer)).toBe(false);
      if (seen.has(chunk.buffer)) stats.reused++;
      seen.add(chunk.buffer);
      lent.add(chunk.buffer);
      hash.update(chunk);
      stats.chunks++;
      stats.bytes += chunk.length;
      stats.heldBytes += chunk.length;
      const length = chunk.length;
      held.push(() => {
        lent.delete(chunk.buffer);
        stats.heldBytes -= length;
        release();
      });
      stats.maxHeld = Math.max(stats.maxHeld, held.length);
      stats.maxHeldBytes = Math.max(stats.maxHeldBytes, stats.heldBytes);
    },
    releaseAll() {
      for (const release of held.splice(0)) release();
    },
    get held() {
      return held.length;
    },
    digest: () => hash.digest("hex"),
  };
}

describe("LentOutputReader", () => {
  it("stops reading while 16 chunks are lent, so the writer waits, and goes on as they are given back", async () => {
    const source = await writer(100);
    const sink = fakeWriter();
    const reader = new LentOutputReader(source.readFd, (chunk, release) => sink.onChunk(chunk, release));
    await sleep(300);
    // Paused at the limit: nothing more is read however long the writer waits.
    expect(sink.held).toBe(MAX_LENT_CHUNKS);
    const heldThen = sink.stats.chunks;
    await sleep(100);
    expect(sink.stats.chunks).toBe(heldThen);
    expect(sink.stats.maxHeldBytes).toBeLessThanOrEqual(MAX_LENT_BYTES);
    let ended = false;
    void reader.ended.then(() => (ended = true));
    while (!ended) {
      sink.releaseAll();
      await sleep(5);
    }
    await source.exited;
    expect(sink.stats.bytes).toBe(100 * CHUNK);
    expect(sink.digest()).toBe(source.sha256);
    expect(sink.stats.maxHeld).toBeLessThanOrEqual(MAX_LENT_CHUNKS);
  });

  it("reads into the same few buffers again instead of a new one per chunk", async () => {
    const source = await writer(200);
    const sink = fakeWriter();
    const reader = new LentOutputReader(source.readFd, (chunk, release) => {
      sink.onChunk(chunk, release);
      // Given back at once, as a frame written straight into an empty pipe would be.
      sink.releaseAll();
    });
    await reader.ended;
    expect(sink.digest()).toBe(source.sha256);
    expect(sink.stats.chunks).toBeGreaterThanOrEqual(200 * (CHUNK / LENT_BUFFER_BYTES));
    expect(reader.allocated).toBeLessThanOrEqual(2);
    expect(sink.stats.reused).toBe(sink.stats.chunks - reader.allocated);
  });

  it("reads on without a limit once unthrottled (the child has exited)", async () => {
    const source = await writer(40);
    const sink = fakeWriter();
    const reader = new LentOutputReader(source.readFd, (chunk, release) => sink.onChunk(chunk, release));
    await sleep(200);
    expect(sink.stats.chunks).toBeLessThanOrEqual(MAX_LENT_CHUNKS);
    reader.unthrottle();
    await reader.ended;
    // Everything read while nothing was given back.
    expect(sink.stats.bytes).toBe(40 * CHUNK);
    expect(sink.digest()).toBe(source.sha256);
    sink.releaseAll();
  });
});

describe("makeOutputFifos", () => {
  it("leaves no name behind, and refuses a folder it cannot make", async () => {
    const state = path.join(dir, "state");
    const fifos = await makeOutputFifos(state, 2);
    expect(fifos).toHaveLength(2);
    expect(await readdir(state)).toEqual([]);
    for (const { readFd, writeFd } of fifos) {
      closeSync(readFd);
      closeSync(writeFd);
    }
    await writeFile(path.join(dir, "file"), "");
    await expect(makeOutputFifos(path.join(dir, "file", "state"), 2)).rejects.toThrow();
  });
});

describe("runInGroup with fifoDir", () => {
  const run = (fifoDir: string, command: string) => {
    const out: Buffer[] = [];
    const offsets: number[] = [];
    const result = runInGroup({
      file: "bash",
      args: ["-c", command],
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      fifoDir,
      onOutput(stream, chunk, offset, release) {
        if (stream === "stdout") {
          offsets.push(offset);
          out.push(Buffer.from(chunk));
        }
        release();
      },
    });
    return { result, out, offsets };
  };

  it("gives the child a FIFO whose name is already gone, with exact offsets", async () => {
    const { result, out, offsets } = run(path.join(dir, "state"), "readlink /proc/self/fd/1; head -c 300000 /dev/zero");
    expect((await result).exitCode).toBe(0);
    const all = Buffer.concat(out);
    const link = all.subarray(0, all.indexOf(10)).toString();
    expect(link).toMatch(new RegExp(`^${path.join(dir, "state")}/out-[0-9a-f]+ \\(deleted\\)$`));
    expect(all.length).toBe(link.length + 1 + 300_000);
    let expected = 0;
    for (const [i, offset] of offsets.entries()) {
      expect(offset).toBe(expected);
      expected += out[i]?.length ?? 0;
    }
  });

  it("keeps stdout and stderr apart, each byte-exact", async () => {
    const streams = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    const result = await runInGroup({
      file: "bash",
      args: ["-c", "head -c 200000 /dev/urandom > big; cat big; cat big >&2; sha256sum big"],
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      fifoDir: path.join(dir, "state"),
      onOutput(stream, chunk, _offset, release) {
        streams[stream].push(Buffer.from(chunk));
        release();
      },
    });
    expect(result.exitCode).toBe(0);
    const stdout = Buffer.concat(streams.stdout);
    const stderr = Buffer.concat(streams.stderr);
    const digest = stdout.subarray(200_000).toString().split(" ")[0];
    expect(createHash("sha256").update(stdout.subarray(0, 200_000)).digest("hex")).toBe(digest);
    expect(createHash("sha256").update(stderr).digest("hex")).toBe(digest);
  });

  it("ends on a timeout mid-stream, and leaves no FIFO of its own open in this process", async () => {
    const openFds = async () => (await readdir("/proc/self/fd")).length;
    // A first run leaves sets made ahead (FIFO_SETS_PER_BATCH); the run below takes one of them, whose four fds (two
    // FIFOs' read and write ends) it must close, and opens nothing it leaves open.
    await run(path.join(dir, "state"), "true").result;
    await outputFifoSupply(path.join(dir, "state")).prepared();
    const before = await openFds();
    let bytes = 0;
    const result = await runInGroup({
      file: "bash",
      args: ["-c", "cat /dev/zero"],
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      timeoutMs: 300,
      signal: new AbortController().signal,
      fifoDir: path.join(dir, "state"),
      onOutput(_stream, chunk, _offset, release) {
        bytes += chunk.length;
        release();
      },
    });
    expect(result.timedOut).toBe(true);
    expect(bytes).toBeGreaterThan(0);
    // The sockets close their fds on the next turns.
    await sleep(50);
    await outputFifoSupply(path.join(dir, "state")).prepared();
    expect(await openFds()).toBe(before - 4);
  });

  it("does not wait for a survivor that still holds the FIFO's write end", async () => {
    const out: Buffer[] = [];
    const started = Date.now();
    const result = await runInGroup({
      file: "bash",
      args: ["-c", "sleep 30 & echo done"],
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      timeoutMs: 20_000,
      signal: new AbortController().signal,
      fifoDir: path.join(dir, "state"),
      onOutput(_stream, chunk, _offset, release) {
        out.push(Buffer.from(chunk));
        release();
      },
    });
    expect(Buffer.concat(out).toString()).toBe("done\n");
    expect(result.exitCode).toBe(0);
    expect(result.survivors).toBe(1);
    // Two drain waits, not the survivor's 30 s.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("starts the next run on a set made ahead, a FIFO of its own", async () => {
    const state = path.join(dir, "state");
    const first = run(state, "readlink /proc/self/fd/1");
    expect((await first.result).exitCode).toBe(0);
    await outputFifoSupply(state).prepared();
    const second = run(state, "readlink /proc/self/fd/1");
    expect((await second.result).exitCode).toBe(0);
    const [one, two] = [first.out, second.out].map((out) => Buffer.concat(out).toString().trim());
    expect(two).toMatch(/\/out-[0-9a-f]+ \(deleted\)$/);
    expect(two).not.toBe(one);
  });

  it("falls back to pipes when no FIFO can be made", async () => {
    await writeFile(path.join(dir, "file"), "");
    const { result, out } = run(path.join(dir, "file", "state"), "readlink /proc/self/fd/1");
    expect((await result).exitCode).toBe(0);
    expect(Buffer.concat(out).toString()).not.toContain("(deleted)");
    expect(Buffer.concat(out).length).toBeGreaterThan(0);
  });
});

describe("OutputFifoSupply", () => {
  /** A maker that records what it made (fake fds: nothing is opened) and fails while `failing` is set. */
  function fakeMaker() {
    const made: OutputFifo[][] = [];
    const maker = {
      made,
      failing: false,
      make: async (_dir: string, count: number): Promise<OutputFifo[]> => {
        if (maker.failing) throw new Error("mkfifo: not found");
        const fifos = Array.from({ length: count }, (_, i) => ({ readFd: 1000 + made.length * 100 + i, writeFd: 2000 + made.length * 100 + i }));
        made.push(fifos);
        return fifos;
      },
    };
    return maker;
  }

  it("makes a batch of sets with one mkfifo, hands them out in turn, and makes the next batch only once they are gone", async () => {
    const maker = fakeMaker();
    const supply = new OutputFifoSupply("/state", 2, 3, maker.make);
    const sets = [await supply.take(), await supply.take()];
    supply.prepare(); // one set is left: nothing is made
    await supply.prepared();
    sets.push(await supply.take());
    expect(maker.made).toHaveLength(1);
    expect(maker.made[0]).toHaveLength(6);
    expect(sets).toEqual([maker.made[0]!.slice(0, 2), maker.made[0]!.slice(2, 4), maker.made[0]!.slice(4, 6)]);
    supply.prepare();
    supply.prepare(); // one batch at a time
    await supply.prepared();
    expect(maker.made).toHaveLength(2);
    expect(await supply.take()).toEqual(maker.made[1]!.slice(0, 2));
  });

  it("throws when no batch can be made, and makes one again for the next run", async () => {
    const maker = fakeMaker();
    const supply = new OutputFifoSupply("/state", 2, 4, maker.make);
    maker.failing = true;
    await expect(supply.take()).rejects.toThrow("no FIFOs could be made in /state");
    maker.failing = false;
    await expect(supply.take()).resolves.toHaveLength(2);
  });

  it("gives runs that start together a set each from the one batch being made", async () => {
    const maker = fakeMaker();
    const supply = new OutputFifoSupply("/state", 2, 2, maker.make);
    const [a, b] = await Promise.all([supply.take(), supply.take()]);
    expect(maker.made).toHaveLength(1);
    expect(a).not.toEqual(b);
  });
});
