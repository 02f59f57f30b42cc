import { describe, expect, it } from "vitest";
import { gatewayTool } from "./gateway-tool";
import { dispatchTool } from "../orchestration/dispatch-tool";
import { bashTool, readFileTool, updateAgentsMdTool } from "../builtin/builtin-tools";
import { reachableClasses } from "./reachable-classes";

const catalogue = [gatewayTool, dispatchTool, readFileTool, updateAgentsMdTool, bashTool];

describe("reachableClasses", () => {
  it("is every catalogue class autonomy does not deny, not counting the tools that reach others", () => {
    expect(reachableClasses(catalogue, "default")).toEqual(expect.arrayContaining(["read", "write"]));
    expect(reachableClasses(catalogue, "default")).not.toContain("dispatch");
  });

  it("is reads only at read-only autonomy, whatever else is listed or unlisted", () => {
    expect(reachableClasses(catalogue, "read-only", { unlistedServers: 2 })).toEqual(["read"]);
  });

  it("counts a server that could not be listed as unknown (it may have any tool)", () => {
    expect(reachableClasses([readFileTool], "default")).toEqual(["read"]);
    expect(reachableClasses([readFileTool], "default", { unlistedServers: 1 })).toEqual(["read", "unknown"]);
  });
});
