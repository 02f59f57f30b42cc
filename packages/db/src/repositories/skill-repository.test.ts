import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Repositories } from "./create-repositories";
import { openTestRepositories } from "./testing/open-test-repositories";

let repos: Repositories;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ repos, close } = await openTestRepositories());
}, 60_000);
afterAll(() => close());

describe("SkillRepository", () => {
  it("stores allowedTools as JSON and reads it back as a list, versions updates, and deletes", async () => {
    const created = await repos.skills.create({ id: "skill_1", name: "review", description: "d", body: "b", allowedTools: ["read_file", "grep"], contentHash: "h1", ownerId: "user_a" });
    expect(created).toMatchObject({ name: "review", allowedTools: ["read_file", "grep"], version: 1, ownerId: "user_a" });
    await repos.skills.create({ id: "skill_2", name: "audit", description: "d", body: "b", allowedTools: [], contentHash: "h2", ownerId: "user_a" });
    expect((await repos.skills.list()).map((s) => s.name)).toEqual(["audit", "review"]);
    const updated = await repos.skills.update("review", { description: "d2", body: "b2", allowedTools: ["glob"], contentHash: "h3", version: 2 });
    expect(updated).toMatchObject({ description: "d2", allowedTools: ["glob"], contentHash: "h3", version: 2 });
    await repos.skills.delete("audit");
    expect(await repos.skills.get("audit")).toBeNull();
  });
});
