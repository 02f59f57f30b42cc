import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDatabase } from "./create-database";
import { restrictDataDir } from "./restrict-data-dir";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe("restrictDataDir", () => {
  it("makes every folder 0700 and every file 0600, and leaves what a symlink points to alone", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-modes-"));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "berth-outside-"));
    dirs.push(dir, outside);
    fs.chmodSync(dir, 0o755);
    fs.mkdirSync(path.join(dir, "runs/run_1"), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(dir, "runs/run_1/stdout.log"), "x", { mode: 0o644 });
    fs.writeFileSync(path.join(dir, "berth.db"), "", { mode: 0o666 });
    fs.writeFileSync(path.join(outside, "theirs"), "", { mode: 0o644 });
    fs.symlinkSync(path.join(outside, "theirs"), path.join(dir, "link"));
    restrictDataDir(dir);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(path.join(dir, "runs"))).toBe(0o700);
    expect(modeOf(path.join(dir, "runs/run_1"))).toBe(0o700);
    expect(modeOf(path.join(dir, "runs/run_1/stdout.log"))).toBe(0o600);
    expect(modeOf(path.join(dir, "berth.db"))).toBe(0o600);
    expect(modeOf(path.join(outside, "theirs"))).toBe(0o644);
  });

  it("leaves the SQLite database and its WAL and SHM 0600 once opened", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-modes-db-"));
    dirs.push(dir);
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(path.join(dir, "berth.db"), "", { mode: 0o644 });
    const db = await createDatabase({ dataDir: dir });
    try {
      await db.$queryRawUnsafe("CREATE TABLE t (x INTEGER)");
      await db.$queryRawUnsafe("INSERT INTO t VALUES (1)");
      expect(modeOf(dir)).toBe(0o700);
      for (const name of ["berth.db", "berth.db-wal", "berth.db-shm"])
        expect(modeOf(path.join(dir, name)), name).toBe(0o600);
    } finally {
      await db.$disconnect();
    }
  });
});
