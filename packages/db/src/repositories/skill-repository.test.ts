import { describe, expect, it } from "vitest";
import { useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories();

describe("SkillRepository", () => {
  it("stores allowedTools as JSON and reads it back as a list, versions updates, and deletes", async () => {
    const created = await t.repos.skills.create({
      id: "skill_1",
      name: "review",
      description: "d",
      body: "b",
      allowedTools: ["read_file", "grep"],
      contentHash: "h1",
      ownerId: "user_a",
    });
    expect(created).toMatchObject({
      name: "review",
      allowedTools: ["read_file", "grep"],
      version: 1,
      ownerId: "user_a",
    });
    await t.repos.skills.create({
      id: "skill_2",
      name: "audit",
      description: "d",
      body: "b",
      allowedTools: [],
      contentHash: "h2",
      ownerId: "user_a",
    });
    expect((await t.repos.skills.list()).map((s) => s.name)).toEqual(["audit", "review"]);
    const updated = await t.repos.skills.update("review", {
      description: "d2",
      body: "b2",
      allowedTools: ["glob"],
      contentHash: "h3",
      version: 2,
    });
    expect(updated).toMatchObject({ description: "d2", allowedTools: ["glob"], contentHash: "h3", version: 2 });
    await t.repos.skills.delete("audit");
    expect(await t.repos.skills.get("audit")).toBeNull();
  });
});
