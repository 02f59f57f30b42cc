import type { SessionSkillRecord } from "@berth/db";
import type { SkillView } from "@berth/protocol";
import { describe, expect, it } from "vitest";
import { legacySkillContentHash, skillContentHash } from "./skill-content-hash";
import { SkillsService } from "./skills-service";

/** Skills in memory behind the repository methods SkillsService uses (the Docker suite runs the real ones). */
function service(rows: SkillView[]) {
  const skills = new Map(rows.map((row) => [row.name, row]));
  const active: SessionSkillRecord[] = [];
  const svc = new SkillsService({
    skills: {
      list: async () => [...skills.values()],
      get: async (name) => skills.get(name) ?? null,
      update: async (name, content) => {
        const next = { ...(skills.get(name) as SkillView), ...content };
        skills.set(name, next);
        return next;
      },
    },
    sessionSkills: {
      list: async (sessionId) => active.filter((a) => a.sessionId === sessionId),
      activate: async (record) => {
        const stored = { ...record, activatedAt: new Date().toISOString() };
        active.push(stored);
        return stored;
      },
      deactivate: async (sessionId, skillName) => {
        const at = active.findIndex((a) => a.sessionId === sessionId && a.skillName === skillName);
        if (at >= 0) active.splice(at, 1);
        return at >= 0;
      },
    },
  });
  return { svc, skills };
}

const base = {
  name: "lockdown",
  description: "Read only.",
  body: "Only read.",
  allowedTools: ["read_file"],
  version: 1,
  ownerId: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};
const agent = { userId: "agent", mayActivateManual: false };

describe("a skill's content hash covers its activation", () => {
  it("differs between model and manual", () => {
    expect(skillContentHash({ ...base, activation: "manual" })).not.toBe(
      skillContentHash({ ...base, activation: "model" }),
    );
  });

  it("a manual skill edited to model behind the API has drifted, and an agent cannot activate it", async () => {
    const installed = skillContentHash({ ...base, activation: "manual" });
    const { svc } = service([{ ...base, activation: "model", contentHash: installed }]);
    expect((await svc.list("s1"))[0]).toMatchObject({ name: "lockdown", activation: "model", drifted: true });
    expect(await svc.setActive("s1", "lockdown", true, agent)).toMatchObject({
      code: "skill_drifted",
      refused: expect.stringMatching(/^skill lockdown has drifted/),
    });
    expect(await svc.narrowing("s1")).toBeNull();
  });
});

describe("an active skill that drifts", () => {
  it("narrows its session to gateway and context only until accepted (fail closed)", async () => {
    const reader = { ...base, name: "reader", allowedTools: ["read_file", "grep"], activation: "model" as const };
    const { svc, skills } = service([{ ...reader, contentHash: skillContentHash(reader) }]);
    expect(await svc.setActive("s1", "reader", true, agent)).toMatchObject({ active: true });
    expect([...((await svc.narrowing("s1"))?.tools ?? [])]).toEqual(["gateway", "context", "read_file", "grep"]);
    skills.set("reader", { ...(skills.get("reader") as SkillView), allowedTools: ["read_file", "grep", "bash"] });
    expect(await svc.narrowing("s1")).toEqual({ skills: ["reader"], tools: new Set(["gateway", "context"]) });
    await svc.accept("reader");
    expect([...((await svc.narrowing("s1"))?.tools ?? [])]).toEqual([
      "gateway",
      "context",
      "read_file",
      "grep",
      "bash",
    ]);
  });
});

describe("upgradeLegacyHashes", () => {
  it("gives a row hashed before activation was covered the current hash, once; a drifted one stays drifted", async () => {
    const legacy = { ...base, name: "legacy", activation: "manual" as const };
    const tampered = { ...base, name: "tampered", activation: "model" as const };
    const current = { ...base, name: "current", activation: "model" as const };
    const { svc, skills } = service([
      { ...legacy, contentHash: legacySkillContentHash(legacy) },
      // Its body changed after the legacy hash was recorded.
      { ...tampered, contentHash: legacySkillContentHash({ ...tampered, body: "Something else." }) },
      { ...current, contentHash: skillContentHash(current) },
    ]);
    expect(await svc.upgradeLegacyHashes()).toEqual(["legacy"]);
    expect(skills.get("legacy")).toMatchObject({ contentHash: skillContentHash(legacy), version: 1 });
    const drifted = Object.fromEntries((await svc.list("s1")).map((s) => [s.name, s.drifted]));
    expect(drifted).toEqual({ legacy: false, tampered: true, current: false });
    expect(await svc.upgradeLegacyHashes()).toEqual([]);
  });
});

describe("narrowingNow (a tool call's gate without waiting)", () => {
  it("answers not narrowed only for a session known to have no active skill; anything else is narrowing's to tell", async () => {
    const reader = { ...base, name: "reader", allowedTools: ["read_file"], activation: "model" as const };
    const { svc } = service([{ ...reader, contentHash: skillContentHash(reader) }]);
    // Nothing read yet about s1: only narrowing can tell.
    expect(svc.narrowingNow("s1")).toBeUndefined();
    expect(await svc.narrowing("s1")).toBeNull();
    expect(svc.narrowingNow("s1")).toBeNull();
    // A skill turned on: the cached answer goes, and a session with an active skill always asks narrowing.
    await svc.setActive("s1", "reader", true, agent);
    expect(svc.narrowingNow("s1")).toBeUndefined();
    expect(await svc.narrowing("s1")).not.toBeNull();
    expect(svc.narrowingNow("s1")).toBeUndefined();
  });
});
