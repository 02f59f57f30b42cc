import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, type Database } from "./create-database";

const root = path.resolve(import.meta.dirname, "../../..");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-sqlite-adapter-"));
let db: Database;

// The same path the runner takes: the CLI migrates through prisma.config.ts, the client opens through createDatabase.
beforeAll(async () => {
  execFileSync("npx", ["prisma", "migrate", "deploy"], { cwd: root, env: { ...process.env, BERTH_DATA_DIR: dataDir, DATABASE_URL: "" }, stdio: "pipe" });
  db = await createDatabase({ dataDir });
  await db.user.create({ data: { id: "u1", name: "ada", role: "admin" } });
  await db.session.create({ data: { id: "s1", name: "one", ownerId: "u1" } });
}, 120_000);
afterAll(async () => {
  await db?.$disconnect();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("SqliteAdapter (libsql under Prisma)", () => {
  it("round-trips dates, booleans, integers and nulls, and stores dates as the ISO text the old driver wrote", async () => {
    const endedAt = new Date("2026-12-01T10:20:30.456Z");
    await db.run.create({ data: { id: "r1", sessionId: "s1", userId: "u1", tool: "bash", exitCode: 0, stdoutBytes: 2_147_483_000, endedAt } });
    await db.toolCall.create({ data: { id: "c1", sessionId: "s1", runId: "r1", userId: "u1", caller: "api", tool: "bash", argsSha256: "x", actionClass: "exec", verdict: "allow", ok: false } });
    const run = await db.run.findUniqueOrThrow({ where: { id: "r1" }, include: { toolCalls: true } });
    expect(run.endedAt?.toISOString()).toBe(endedAt.toISOString());
    expect(run.exitCode).toBe(0);
    expect(run.stdoutBytes).toBe(2_147_483_000);
    expect(run.durationMs).toBeNull();
    expect(run.toolCalls[0]?.ok).toBe(false);
    const [stored] = await db.$queryRawUnsafe<{ endedAt: string }[]>(`SELECT endedAt || '' AS endedAt FROM Run WHERE id = 'r1'`);
    expect(stored?.endedAt).toBe("2026-12-01T10:20:30.456+00:00");
  });

  it("keeps 64-bit integers exact in raw queries", async () => {
    const [row] = await db.$queryRawUnsafe<{ big: bigint }[]>("SELECT 9007199254740993 AS big");
    expect(row?.big).toBe(9007199254740993n);
  });

  it("turns constraint failures into Prisma's errors (P2002 unique, P2003 foreign key)", async () => {
    await expect(db.user.create({ data: { id: "u1", name: "again", role: "admin" } })).rejects.toMatchObject({ code: "P2002" });
    await expect(db.session.create({ data: { id: "s2", name: "orphan", ownerId: "nobody" } })).rejects.toMatchObject({ code: "P2003" });
    // The statement that failed is prepared once and kept: it must run cleanly again.
    await db.user.create({ data: { id: "u2", name: "grace", role: "developer" } });
    expect((await db.user.findMany({ orderBy: { id: "asc" } })).map((u) => u.name)).toEqual(["ada", "grace"]);
  });

  it("rolls a failed transaction back whole and keeps the connection's pragmas after it and after a reconnect", async () => {
    await expect(
      db.$transaction([
        db.user.create({ data: { id: "u3", name: "kept?", role: "viewer" } }),
        db.user.create({ data: { id: "u1", name: "clash", role: "viewer" } }),
      ]),
    ).rejects.toMatchObject({ code: "P2002" });
    expect(await db.user.findUnique({ where: { id: "u3" } })).toBeNull();
    await db.$transaction([db.user.create({ data: { id: "u4", name: "linus", role: "viewer" } })]);
    expect((await db.user.findUnique({ where: { id: "u4" } }))?.name).toBe("linus");
    for (const when of ["after the transactions", "after a reconnect"]) {
      if (when === "after a reconnect") await db.$disconnect();
      const [timeout] = await db.$queryRawUnsafe<{ timeout: bigint }[]>("PRAGMA busy_timeout");
      const [sync] = await db.$queryRawUnsafe<{ synchronous: bigint }[]>("PRAGMA synchronous");
      const [journal] = await db.$queryRawUnsafe<{ journal_mode: string }[]>("PRAGMA journal_mode");
      expect(Number(timeout?.timeout), when).toBe(5000);
      expect(Number(sync?.synchronous), when).toBe(1); // NORMAL
      expect(journal?.journal_mode, when).toBe("wal");
    }
  });

  it("waits out another process's write lock instead of failing with SQLITE_BUSY", async () => {
    // The other process holds a write transaction for a moment; the busy timeout (5 s) lets our write wait for it.
    const holder = spawn(
      process.execPath,
      [
        "-e",
        `const Db = require("libsql"); const db = new Db(process.argv[1]); db.exec("BEGIN IMMEDIATE");
         db.exec("INSERT INTO User (id, name, role) VALUES ('held', 'held', 'viewer')"); console.log("locked");
         setTimeout(() => { db.exec("COMMIT"); db.close(); }, 400);`,
        path.join(dataDir, "berth.db"),
      ],
      { cwd: import.meta.dirname, stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
    await db.user.create({ data: { id: "u5", name: "waited", role: "viewer" } });
    await new Promise((resolve) => holder.once("exit", resolve));
    expect((await db.user.findMany({ where: { id: { in: ["held", "u5"] } }, orderBy: { id: "asc" } })).map((u) => u.id)).toEqual(["held", "u5"]);
  });
});
