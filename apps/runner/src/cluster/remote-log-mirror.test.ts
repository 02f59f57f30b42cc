import { afterEach, describe, expect, it } from "vitest";
import type { RunLogChunkRecord } from "@berth/db";
import { LocalClusterBus } from "./cluster-bus";
import { encodeLogChunkMessage, logChannel } from "./log-chunk-message";
import { RemoteLogMirror, type MirroredRunState } from "./remote-log-mirror";

/** A run's writer as the database log store makes it: each batch stored, then published (or, to lose it, not). */
class FakeWriter {
  readonly stored: RunLogChunkRecord[] = [];
  private readonly sizes = { stdout: 0, stderr: 0 };
  state: MirroredRunState = { running: true, stdoutBytes: 0, stderrBytes: 0 };

  constructor(
    private readonly bus: LocalClusterBus,
    readonly runId = "run_m",
  ) {}

  async write(texts: [stream: "stdout" | "stderr", text: string][], opts: { publish?: boolean } = {}): Promise<void> {
    const chunks = texts.map(([stream, text]): RunLogChunkRecord => {
      const data = Buffer.from(text);
      const chunk = { runId: this.runId, seq: this.stored.length, stream, offset: this.sizes[stream], ms: 1_000 + this.stored.length, data };
      this.sizes[stream] += data.length;
      this.stored.push(chunk);
      return chunk;
    });
    if (opts.publish !== false) await this.bus.publish(logChannel(this.runId), encodeLogChunkMessage({ chunks }));
  }

  async end(opts: { publish?: boolean } = {}): Promise<void> {
    this.state = { running: false, stdoutBytes: this.sizes.stdout, stderrBytes: this.sizes.stderr };
    if (opts.publish !== false) await this.bus.publish(logChannel(this.runId), encodeLogChunkMessage({ chunks: [], end: this.stored.length }));
  }
}

const mirrors: RemoteLogMirror[] = [];
afterEach(async () => {
  for (const mirror of mirrors.splice(0)) await mirror.stop();
});

function follow(writer: FakeWriter, bus: LocalClusterBus, opts: { beforeList?: () => Promise<void>; pollMs?: number } = {}) {
  const applied: RunLogChunkRecord[] = [];
  const errors: unknown[] = [];
  let lists = 0;
  const mirror = new RemoteLogMirror(writer.runId, {
    bus,
    list: async (_runId, fromSeq, limit) => {
      // The first read is slow: what the writer does meanwhile reaches the mirror as live messages.
      if (lists++ === 0) await opts.beforeList?.();
      return writer.stored.filter((c) => c.seq >= fromSeq).slice(0, limit);
    },
    state: () => Promise.resolve(writer.state),
    apply: (chunk) => applied.push(chunk),
    pollMs: opts.pollMs ?? 60_000,
    onError: (error) => errors.push(error),
  });
  mirrors.push(mirror);
  const text = (stream?: "stdout" | "stderr") => Buffer.concat(applied.filter((c) => !stream || c.stream === stream).map((c) => c.data)).toString();
  return { mirror, applied, errors, text };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("RemoteLogMirror", () => {
  it("splices the stored chunks and the live tail heard while reading them: every chunk once, in order", async () => {
    const bus = new LocalClusterBus();
    const writer = new FakeWriter(bus);
    await writer.write([["stdout", "a0\n"], ["stderr", "e0\n"]]);
    // Stored and published while the mirror reads the database: in both, applied once.
    const { mirror, applied, text, errors } = follow(writer, bus, {
      beforeList: async () => {
        await writer.write([["stdout", "a1\n"]]);
        await writer.write([["stdout", "a2\n"], ["stderr", "e1\n"]]);
        await settle();
      },
    });
    await mirror.start();
    expect(applied.map((c) => c.seq)).toEqual([0, 1, 2, 3, 4]);
    await writer.write([["stdout", "a3\n"]]);
    await settle();
    await writer.end();
    await mirror.ended;
    expect(applied.map((c) => c.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect([text("stdout"), text("stderr")]).toEqual(["a0\na1\na2\na3\n", "e0\ne1\n"]);
    expect(errors).toEqual([]);
  });

  it("reads a lost message from the database when the next one shows the gap", async () => {
    const bus = new LocalClusterBus();
    const writer = new FakeWriter(bus);
    const { mirror, applied, text } = follow(writer, bus);
    await mirror.start();
    await writer.write([["stdout", "one\n"]]);
    await writer.write([["stdout", "two\n"]], { publish: false });
    await writer.write([["stdout", "three\n"]]);
    await settle();
    expect(applied.map((c) => c.seq)).toEqual([0, 1, 2]);
    expect(text()).toBe("one\ntwo\nthree\n");
  });

  it("ends at the end message once it has every chunk the writer stored, even the ones whose message was lost", async () => {
    const bus = new LocalClusterBus();
    const writer = new FakeWriter(bus);
    const { mirror, applied } = follow(writer, bus);
    await mirror.start();
    await writer.write([["stdout", "x"]]);
    await writer.write([["stderr", "y"]], { publish: false });
    await writer.end();
    await mirror.ended;
    expect(applied.map((c) => c.seq)).toEqual([0, 1]);
    // Unsubscribed: a later publish is not applied.
    await writer.write([["stdout", "late"]]);
    await settle();
    expect(applied).toHaveLength(2);
  });

  it("stops on its poll when the run's row says it ended and the end message never came (a writer that died)", async () => {
    const bus = new LocalClusterBus();
    const writer = new FakeWriter(bus);
    const { mirror, applied, text } = follow(writer, bus, { pollMs: 10 });
    await mirror.start();
    await writer.write([["stdout", "before "]]);
    await writer.write([["stdout", "the end"]], { publish: false });
    await writer.end({ publish: false });
    await mirror.ended;
    expect(applied.map((c) => c.seq)).toEqual([0, 1]);
    expect(text()).toBe("before the end");
  });

  it("copies what is stored and stops when told to (failover), with the writer's run still marked running", async () => {
    const bus = new LocalClusterBus();
    const writer = new FakeWriter(bus);
    await writer.write([["stdout", "kept "]]);
    const { mirror, text } = follow(writer, bus);
    await mirror.start();
    await writer.write([["stdout", "stored, never heard"]], { publish: false });
    await mirror.catchUpAndStop();
    await mirror.ended;
    expect(text()).toBe("kept stored, never heard");
    expect(mirror.applied).toBe(2);
  });
});
