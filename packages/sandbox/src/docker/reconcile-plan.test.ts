import { describe, expect, it } from "vitest";
import { type ContainerDescription, planReconcile, volumesToKeep } from "./reconcile-plan";
import { sandboxLabels } from "./sandbox-labels";

const RUNNER = "r1";

function container(
  id: string,
  name: string,
  session: string,
  volume: string,
  opts: { created?: number; state?: string } = {},
): ContainerDescription {
  return {
    Id: id,
    Names: [`/${name}`],
    Labels: sandboxLabels(RUNNER, session, volume, false),
    Created: opts.created ?? 1,
    State: opts.state ?? "running",
  };
}

const none = new Set<string>();

describe("planReconcile (a plain list of container descriptions)", () => {
  it("adopts a live session's container and reaps a gone session's", () => {
    const plan = planReconcile({
      containers: [container("c1", "berth-s-a", "a", "vol-a"), container("c2", "berth-s-gone", "gone", "vol-g")],
      live: [{ sessionId: "a", volumeName: "vol-a" }],
      attachedContainers: none,
      attachedSessions: none,
    });
    expect(plan.adopt).toEqual([
      { sessionId: "a", container: expect.objectContaining({ Id: "c1" }), volumeName: "vol-a" },
    ]);
    expect(plan.reap.map((c) => c.Id)).toEqual(["c2"]);
  });

  it("reaps an old pool's containers but adopts a warm one claimed just before a crash (its name or volume says whose)", () => {
    const plan = planReconcile({
      containers: [
        container("p1", "berth-pool-abc", "pool", "vol-p"),
        container("p2", "berth-s-b", "pool", "vol-b"),
        container("p3", "berth-pool-def", "pool", "vol-c"),
      ],
      live: [{ sessionId: "b" }, { sessionId: "c", volumeName: "vol-c" }],
      attachedContainers: none,
      attachedSessions: none,
    });
    expect(plan.adopt.map((a) => [a.sessionId, a.container.Id, a.volumeName])).toEqual([
      ["b", "p2", "vol-b"],
      ["c", "p3", "vol-c"],
    ]);
    expect(plan.reap.map((c) => c.Id)).toEqual(["p1"]);
    // The adopted container's volume label fills in a live session given without one.
    expect(plan.liveVolumes.get("b")).toBe("vol-b");
  });

  it("keeps the newest container of a session and reaps the older ones", () => {
    const plan = planReconcile({
      containers: [
        container("old", "berth-s-a", "a", "vol-a", { created: 10, state: "exited" }),
        container("new", "berth-s-a", "a", "vol-a", { created: 20 }),
      ],
      live: ["a"],
      attachedContainers: none,
      attachedSessions: none,
    });
    expect(plan.adopt.map((a) => a.container.Id)).toEqual(["new"]);
    expect(plan.reap.map((c) => c.Id)).toEqual(["old"]);
  });

  it("never touches containers the driver is attached to, and reaps strays of sessions it already holds", () => {
    const plan = planReconcile({
      containers: [container("mine", "berth-s-a", "a", "vol-a"), container("stray", "berth-s-a", "a", "vol-a2")],
      live: ["a"],
      attachedContainers: new Set(["mine"]),
      attachedSessions: new Set(["a"]),
    });
    expect(plan.adopt).toEqual([]);
    expect(plan.reap.map((c) => c.Id)).toEqual(["stray"]);
  });

  it("neither adopts nor reaps a container of a session another runner holds, and keeps its workspace", () => {
    const plan = planReconcile({
      // b's container still carries this runner's label: another runner adopted it in a failover.
      containers: [container("c1", "berth-s-a", "a", "vol-a"), container("c2", "berth-s-b", "b", "vol-b")],
      live: [{ sessionId: "a", volumeName: "vol-a" }, { sessionId: "b", volumeName: "vol-b", elsewhere: true }],
      attachedContainers: none,
      attachedSessions: none,
    });
    expect(plan.adopt.map((a) => a.sessionId)).toEqual(["a"]);
    expect(plan.reap).toEqual([]);
    expect(plan.leave.map((c) => c.Id)).toEqual(["c2"]);
    expect(volumesToKeep(plan.liveVolumes, () => undefined, []).keep).toEqual(new Set(["vol-a", "vol-b"]));
  });

  it("reaps a container that names no volume when the session's is unknown too", () => {
    const bare: ContainerDescription = { Id: "x", Names: ["/berth-s-a"], Labels: {}, Created: 1, State: "running" };
    const plan = planReconcile({ containers: [bare], live: ["a"], attachedContainers: none, attachedSessions: none });
    expect(plan.adopt).toEqual([]);
    expect(plan.reap.map((c) => c.Id)).toEqual(["x"]);
  });
});

describe("volumesToKeep", () => {
  it("keeps live, own and extra volumes, and says when a live session's volume is unknown", () => {
    const live = new Map<string, string | undefined>([
      ["a", "vol-a"],
      ["b", undefined],
    ]);
    expect(volumesToKeep(live, (id) => (id === "b" ? "vol-b" : undefined), ["warm"])).toEqual({
      keep: new Set(["vol-a", "vol-b", "warm"]),
      allKnown: true,
    });
    expect(volumesToKeep(live, () => undefined, []).allKnown).toBe(false);
  });
});
