import { describe, expect, it } from "vitest";
import { WorkspaceQuota } from "./workspace-quota";

describe("WorkspaceQuota", () => {
  it("says why it cannot be enforced next to a remote engine (the runner mounts each image itself)", async () => {
    expect(await WorkspaceQuota.unavailableReason({ localEngine: false })).toMatch(/Docker engine is not local/);
  });

  it("keeps each workspace's image and mount folder apart, and binds the folder", () => {
    const quota = new WorkspaceQuota({ dir: "/data/workspaces/local", sizeBytes: 64 * 1024 ** 2 });
    expect(quota.imagePath("berth-ws-1")).toBe("/data/workspaces/local/berth-ws-1.img");
    expect(quota.volumeOptions("berth-ws-1")).toEqual({
      type: "none",
      o: "bind",
      device: "/data/workspaces/local/berth-ws-1",
    });
  });
});
