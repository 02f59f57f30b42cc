import { describe, expect, it } from "vitest";
import { runLogStoreKind } from "./run-log-store";

describe("runLogStoreKind", () => {
  it("defaults to the database on PostgreSQL and to the files on SQLite; a set BERTH_LOG_STORE wins", () => {
    expect(runLogStoreKind({ BERTH_LOG_STORE: "", DATABASE_URL: "postgresql://db.example/berth" })).toBe("database");
    expect(runLogStoreKind({ BERTH_LOG_STORE: "", DATABASE_URL: undefined })).toBe("local");
    expect(runLogStoreKind({ BERTH_LOG_STORE: "local", DATABASE_URL: "postgres://db.example/berth" })).toBe("local");
    expect(runLogStoreKind({ BERTH_LOG_STORE: "database", DATABASE_URL: undefined })).toBe("database");
  });
});
