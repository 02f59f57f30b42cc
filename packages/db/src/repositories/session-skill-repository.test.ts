import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Repositories } from "./create-repositories";
import { openTestRepositories } from "./testing/open-test-repositories";

let repos: Repositories;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ repos, close } = await openTestRepositories());
}, 60_000);
afterAll(() => close());

describe("SessionSkillRepository", () => {
  it("activates a skill per session once, re-activates at a new hash, lists by name and deactivates", async () => {
    await repos.sessionSkills.activate({
      sessionId: "ses_a",
      skillName: "review",
      contentHash: "h1",
      activatedBy: "user_a",
    });
    await repos.sessionSkills.activate({
      sessionId: "ses_a",
      skillName: "audit",
      contentHash: "h2",
      activatedBy: "user_a",
    });
    await repos.sessionSkills.activate({
      sessionId: "ses_b",
      skillName: "review",
      contentHash: "h1",
      activatedBy: "user_b",
    });
    const again = await repos.sessionSkills.activate({
      sessionId: "ses_a",
      skillName: "review",
      contentHash: "h3",
      activatedBy: "user_c",
    });
    expect(again).toMatchObject({ sessionId: "ses_a", skillName: "review", contentHash: "h3", activatedBy: "user_c" });
    expect((await repos.sessionSkills.list("ses_a")).map((r) => [r.skillName, r.contentHash])).toEqual([
      ["audit", "h2"],
      ["review", "h3"],
    ]);
    expect(await repos.sessionSkills.deactivate("ses_a", "review")).toBe(true);
    expect(await repos.sessionSkills.deactivate("ses_a", "review")).toBe(false);
    expect((await repos.sessionSkills.list("ses_a")).map((r) => r.skillName)).toEqual(["audit"]);
    expect((await repos.sessionSkills.list("ses_b")).map((r) => r.skillName)).toEqual(["review"]);
  });
});
