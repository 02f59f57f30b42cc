import { describe, expect, it } from "vitest";
import { sessionView } from "./session-repository";
import { useTestRepositories } from "./testing/open-test-repositories";

const t = useTestRepositories(async (repos) => {
  await repos.users.create({ id: "user_a", name: "ada", role: "developer" });
  await repos.users.create({ id: "user_b", name: "bob", role: "developer" });
});

const newSession = (id: string, ownerId = "user_a") =>
  t.repos.sessions.create({ id, name: id, ownerId, autonomy: "default", network: "none", env: { API_KEY: "k1" } });

describe("SessionRepository", () => {
  it("stores the env as JSON and reads it back parsed, with the view leaving env and container out", async () => {
    await newSession("ses_1");
    const record = await t.repos.sessions.get("ses_1");
    expect(record).toMatchObject({
      id: "ses_1",
      status: "starting",
      env: { API_KEY: "k1" },
      containerId: null,
      terminatedAt: null,
    });
    expect(await t.repos.sessions.envOf("ses_1")).toEqual({ API_KEY: "k1" });
    expect(Object.keys(sessionView(record!))).not.toContain("env");
    expect(Object.keys(sessionView(record!))).not.toContain("volumeName");
  });

  it("marks a session ready, ended and restarted, clearing how it ended only on restart", async () => {
    await newSession("ses_2");
    expect(await t.repos.sessions.markReady("ses_2", { containerId: "c1", volumeName: "v1" })).toMatchObject({
      status: "ready",
      containerId: "c1",
      volumeName: "v1",
    });
    await t.repos.sessions.markEnded("ses_2", "stopped", "oom");
    const stopped = await t.repos.sessions.get("ses_2");
    expect(stopped).toMatchObject({ status: "stopped", terminationCause: "oom" });
    expect(stopped?.terminatedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(
      await t.repos.sessions.markReady("ses_2", { containerId: "c2", volumeName: "v1" }, { restarted: true }),
    ).toMatchObject({ status: "ready", containerId: "c2", terminationCause: null, terminatedAt: null });
  });

  it("never resurrects a deleted session from a driver status, and leaves deleted ones out of every live list", async () => {
    await newSession("ses_3", "user_b");
    await t.repos.sessions.markEnded("ses_3", "deleted", "deleted");
    expect(await t.repos.sessions.setStatusUnlessDeleted("ses_3", "ready", null)).toBe(false);
    expect((await t.repos.sessions.get("ses_3"))?.status).toBe("deleted");
    expect(await t.repos.sessions.setStatusUnlessDeleted("ses_1", "stopped", "exited")).toBe(true);
    expect((await t.repos.sessions.listLive()).map((s) => s.id)).not.toContain("ses_3");
    expect(await t.repos.sessions.liveIdsOwnedBy("user_b")).toEqual([]);
    expect((await t.repos.sessions.list({ ownerId: "user_a" })).map((s) => s.id).sort()).toEqual(["ses_1", "ses_2"]);
    expect(await t.repos.sessions.countLive()).toBe(2);
    expect(await t.repos.sessions.ownerOf("ses_3")).toBe("user_b");
    expect(await t.repos.sessions.ownerOf("ses_none")).toBeNull();
  });

  it("records who changed autonomy and when", async () => {
    const changed = await t.repos.sessions.setAutonomy("ses_1", "trusted", "ada");
    expect(changed).toMatchObject({ autonomy: "trusted", autonomyChangedBy: "ada" });
    expect(changed.autonomyChangedAt).not.toBeNull();
  });

  it("names the column when a stored env is not a string record", async () => {
    await t.db.session.update({ where: { id: "ses_2" }, data: { envJson: '{"N":1}' } });
    await expect(t.repos.sessions.get("ses_2")).rejects.toThrow(/session\.envJson\.N: stored JSON does not match/);
  });
});
