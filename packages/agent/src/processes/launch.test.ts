import { describe, expect, it } from "vitest";
import { loadAgentConfig } from "../config";
import { asAgentHelper, asWorkspaceUser } from "./launch";

describe("launch", () => {
  const root = loadAgentConfig({ BERTH_WORKSPACE_USER: "1000:1000" }, { runsAsRoot: true });

  it("starts workspace code through setpriv as the workspace user with every capability set cleared", () => {
    expect(asWorkspaceUser(root, "bash", ["-c", "echo ok"])).toEqual({
      file: "setpriv",
      args: [
        "--reuid=1000",
        "--regid=1000",
        "--init-groups",
        "--inh-caps=-all",
        "--ambient-caps=-all",
        "--bounding-set=-all",
        "--",
        "bash",
        "-c",
        "echo ok",
      ],
    });
  });

  it("starts its own helpers without capabilities but keeps its identity", () => {
    expect(asAgentHelper(root, "rg", ["x"])).toEqual({
      file: "setpriv",
      args: ["--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--", "rg", "x"],
    });
  });

  it("runs programs as they are when the agent is not root or no workspace user is set", () => {
    const plain = loadAgentConfig({ BERTH_WORKSPACE_USER: "1000:1000" });
    expect(plain.workspaceUser).toBeNull();
    expect(loadAgentConfig({}, { runsAsRoot: true }).workspaceUser).toBeNull();
    expect(asWorkspaceUser(plain, "bash", ["-c", "x"])).toEqual({ file: "bash", args: ["-c", "x"] });
  });

  it("refuses root as the workspace user", () => {
    expect(() => loadAgentConfig({ BERTH_WORKSPACE_USER: "0:0" }, { runsAsRoot: true })).toThrow(
      /BERTH_WORKSPACE_USER .*"0:0"/,
    );
  });
});
