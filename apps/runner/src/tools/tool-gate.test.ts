import { describe, expect, it } from "vitest";
import { ToolGate, parseRequestAllowlist } from "./tool-gate";

const builtin = { kind: "builtin" as const, origin: "builtin" };
const mcp = { kind: "mcp" as const, origin: "docs", originId: "mcp_1" };

describe("ToolGate", () => {
  it("lets everything through with no allowlist and no active skill", () => {
    const gate = new ToolGate(undefined, null);
    expect(gate.narrows).toBe(false);
    expect(gate.refusal("bash", builtin)).toBeUndefined();
    expect(gate.allowedNames()).toBeNull();
  });

  it("tools= keeps only its names; servers= adds that server's MCP tools (by id or name)", () => {
    const gate = new ToolGate({ tools: ["read_file"], servers: ["mcp_1"] }, null);
    expect(gate.refusal("read_file", builtin)).toBeUndefined();
    expect(gate.refusal("docs_search", mcp)).toBeUndefined();
    expect(gate.refusal("bash", builtin)).toBe(
      "bash is not on this request's allowlist (tools=read_file&servers=mcp_1)",
    );
    expect(new ToolGate({ tools: ["read_file"], servers: ["docs"] }, null).refusal("docs_search", mcp)).toBeUndefined();
  });

  it("servers= alone keeps every built-in and only that server's MCP tools", () => {
    const gate = new ToolGate({ servers: ["other"] }, null);
    expect(gate.refusal("bash", builtin)).toBeUndefined();
    expect(gate.refusal("docs_search", mcp)).toBe("docs_search is not on this request's allowlist (servers=other)");
  });

  it("an active skill narrows to its tools, and both narrow together", () => {
    const skills = { skills: ["reader"], tools: new Set(["gateway", "context", "read_file", "grep"]) };
    expect(new ToolGate(undefined, skills).refusal("bash", builtin)).toBe(
      "bash is outside the active skill reader (allowed: gateway, context, read_file, grep)",
    );
    const both = new ToolGate({ tools: ["read_file", "bash"] }, skills);
    expect(both.refusal("bash", builtin)).toMatch(/outside the active skill reader/);
    expect(both.refusal("read_file", builtin)).toBeUndefined();
    expect(both.allowedNames()).toEqual(["read_file"]);
  });

  it("parses tools and servers from a query string, ignoring blanks", () => {
    expect(parseRequestAllowlist({ tools: "read_file, grep,," })).toEqual({ tools: ["read_file", "grep"] });
    expect(parseRequestAllowlist({ servers: ["a", "b"] })).toEqual({ servers: ["a", "b"] });
    expect(parseRequestAllowlist({ tools: "" })).toBeUndefined();
    expect(parseRequestAllowlist({})).toBeUndefined();
  });
});
