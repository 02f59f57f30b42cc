import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RunLogWriter } from "./run-log-writer";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-writer-"));
  dirs.push(dir);
  return path.join(dir, "run");
}

describe("RunLogWriter", () => {
  it("writes at once: the file holds each chunk when write returns, its callback runs before after() returns", async () => {
    const dir = tempDir();
    const writer = new RunLogWriter(dir, "times.idx");
    const called: number[] = [];
    writer.write("stdout.log", Buffer.from("one\n"));
    writer.after(() => called.push(fs.readFileSync(path.join(dir, "stdout.log")).length));
    expect(called).toEqual([4]);
    expect((fs.statSync(dir).mode & 0o777).toString(8)).toBe("700");
    expect((fs.statSync(path.join(dir, "stdout.log")).mode & 0o777).toString(8)).toBe("600");
    await writer.close();
  });

  // Before the slow-write test below: a slow write makes writers made after it start queued, in this file.
  for (const queued of [false, true]) {
    it(`a write that fails (a full disk) stops the announcements (${queued ? "queued" : "at once"})`, async () => {
      const dir = tempDir();
      fs.mkdirSync(path.dirname(dir), { recursive: true });
      // The run folder cannot be made: a file stands where it would go.
      fs.writeFileSync(dir, "");
      const writer = new RunLogWriter(dir, "times.idx", undefined, { queued });
      let called = false;
      writer.write("stdout.log", Buffer.from("lost\n"));
      writer.after(() => (called = true));
      await writer.flushed();
      expect(called).toBe(false);
      expect(writer.error?.message).toMatch(/EEXIST|ENOTDIR/);
      await writer.close();
    });
  }

  it("a slow write sends the writer, and writers made after it, off the event loop; nothing is lost or reordered", async () => {
    const dir = tempDir();
    // The second clock reading of the first write is 50 ms after the first: that write "took" 50 ms.
    const readings = [0, 50];
    const writer = new RunLogWriter(dir, "times.idx", undefined, { clock: () => readings.shift() ?? 0 });
    const called: string[] = [];
    writer.write("stdout.log", Buffer.from("slow\n"));
    writer.after(() => called.push("slow"));
    expect(called).toEqual(["slow"]);
    writer.write("stdout.log", Buffer.from("queued\n"));
    writer.after(() => called.push("queued"));
    expect(called).toEqual(["slow"]);
    await writer.flushed();
    expect(called).toEqual(["slow", "queued"]);
    const next = new RunLogWriter(tempDir(), "times.idx");
    let nextCalled = false;
    next.write("stdout.log", Buffer.from("x"));
    next.after(() => (nextCalled = true));
    expect(nextCalled).toBe(false);
    await next.close();
    expect(nextCalled).toBe(true);
    await writer.close();
    expect(fs.readFileSync(path.join(dir, "stdout.log"), "utf8")).toBe("slow\nqueued\n");
  });
});
