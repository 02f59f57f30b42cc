import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase, pingDatabase } from "./index";

const root = path.resolve(import.meta.dirname, "../../..");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-db-"));

describe("createDatabase (SQLite, real migrations)", () => {
  execFileSync("npx", ["prisma", "migrate", "deploy"], { cwd: root, env: { ...process.env, BERTH_DATA_DIR: dataDir, DATABASE_URL: "" }, stdio: "pipe" });

  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it("stores and reads back a user with a hashed token, and answers a ping", async () => {
    const db = await createDatabase({ dataDir });
    await db.user.create({ data: { id: "u1", name: "ada", role: "admin", tokens: { create: { id: "t1", tokenHash: "abc" } } } });
    const token = await db.apiToken.findUnique({ where: { tokenHash: "abc" }, include: { user: true } });
    expect(token?.user.name).toBe("ada");
    expect((await pingDatabase(db)).ok).toBe(true);
    await db.$disconnect();
  });

  it("refuses a second token with the same hash", async () => {
    const db = await createDatabase({ dataDir });
    await expect(db.apiToken.create({ data: { id: "t2", userId: "u1", tokenHash: "abc" } })).rejects.toThrow(/Unique constraint/);
    await db.$disconnect();
  });
});
