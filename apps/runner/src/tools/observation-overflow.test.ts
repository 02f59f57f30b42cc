import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ObservationOverflow } from "./observation-overflow";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function overflow(): ObservationOverflow {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-overflow-"));
  dirs.push(dataDir);
  return new ObservationOverflow({ dataDir, runOf: () => Promise.resolve(null) });
}

describe("ObservationOverflow.forget", () => {
  it("removes a removed session's copies and keeps every other session's", async () => {
    const store = overflow();
    const gone = [await store.save("ses_a", "grep", "a".repeat(10)), await store.save("ses_a", "read_file", "b")];
    const kept = await store.save("ses_b", "grep", "kept text");

    expect(await store.forget("ses_a")).toBe(2);

    for (const ref of gone) expect(await store.read("ses_a", ref, 0, 100)).toEqual({ refused: `recall: unknown ref: ${ref}`, code: "not_found" });
    expect(await store.read("ses_b", kept, 0, 100)).toMatchObject({ ref: kept, content: "kept text" });
    expect(await store.forget("ses_a")).toBe(0);
  });

  it("is a no-op before anything was ever cut", async () => {
    expect(await overflow().forget("ses_none")).toBe(0);
  });
});
