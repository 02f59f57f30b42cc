import { describe, expect, it } from "vitest";
import {
  MAX_TOOL_NAME_LENGTH,
  UserToolNameError,
  parseUserToolName,
  projectNames,
  sanitizeToolName,
  userToolName,
} from ".";

describe("sanitizeToolName", () => {
  it("replaces characters outside [a-zA-Z0-9_-] and collapses runs of _", () => {
    expect(sanitizeToolName("github.create issue")).toBe("github_create_issue");
    expect(sanitizeToolName("a..//b")).toBe("a_b");
    expect(sanitizeToolName("read-file")).toBe("read-file");
  });

  it("trims _ at both ends", () => {
    expect(sanitizeToolName("__hello__")).toBe("hello");
    expect(sanitizeToolName("  spaced  ")).toBe("spaced");
  });

  it("prefixes tool_ when the name does not start with a letter", () => {
    expect(sanitizeToolName("3d-render")).toBe("tool_3d-render");
    expect(sanitizeToolName("-x")).toBe("tool_-x");
    expect(sanitizeToolName("")).toBe("tool");
    expect(sanitizeToolName("日本")).toBe("tool");
  });

  it("cuts to 64 characters without leaving a trailing _", () => {
    const long = sanitizeToolName(`${"a".repeat(63)} b`);
    expect(long.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
    expect(long).toBe("a".repeat(63));
    expect(sanitizeToolName("x".repeat(200))).toHaveLength(64);
  });
});

describe("userToolName / parseUserToolName", () => {
  it("builds user_{userId}_tool_{toolName} with the tool part sanitised", () => {
    expect(userToolName("1", "echo")).toBe("user_1_tool_echo");
    expect(userToolName("1_2", "search.docs")).toBe("user_1_2_tool_search_docs");
    expect(userToolName("u1", "3d")).toBe("user_u1_tool_3d");
  });

  it("splits on the first _tool_, so a tool named *_tool_* keeps its name", () => {
    expect(parseUserToolName("user_1_tool_x")).toEqual({ userId: "1", toolName: "x" });
    expect(parseUserToolName("user_1_2_tool_x")).toEqual({ userId: "1_2", toolName: "x" });
    expect(parseUserToolName("user_1_tool_my_tool_x")).toEqual({ userId: "1", toolName: "my_tool_x" });
  });

  it("user 1 never matches 1_2 and the reverse", () => {
    expect(parseUserToolName(userToolName("1_2", "x"))?.userId).toBe("1_2");
    expect(parseUserToolName(userToolName("1", "x"))?.userId).toBe("1");
  });

  it("rejects empty user ids and tool names and other shapes", () => {
    expect(parseUserToolName("user__tool_x")).toBeNull();
    expect(parseUserToolName("user_1_tool_")).toBeNull();
    expect(parseUserToolName("user_1_x")).toBeNull();
    expect(parseUserToolName("echo")).toBeNull();
    expect(parseUserToolName("tool_user_1_tool_x")).toBeNull();
  });

  it("refuses user ids that would not come back out of the name", () => {
    expect(() => userToolName("a_tool", "x")).toThrow(UserToolNameError);
    expect(() => userToolName("a__b", "x")).toThrow(UserToolNameError);
    expect(() => userToolName("", "x")).toThrow(UserToolNameError);
    expect(() => userToolName("x".repeat(60), "x")).toThrow(/too long/);
  });

  it("cuts to 64 characters and still parses to the same user", () => {
    const name = userToolName("user_0123456789abcdef01234567", "a_really_long_tool_name_that_goes_on_and_on");
    expect(name.length).toBeLessThanOrEqual(64);
    expect(parseUserToolName(name)?.userId).toBe("user_0123456789abcdef01234567");
  });
});

describe("projectNames", () => {
  it("keeps the first claim's name and suffixes later ones with a short hash", () => {
    const out = projectNames([
      { id: "srvA/echo", name: "echo" },
      { id: "srvB/echo", name: "echo" },
      { id: "srvC/echo", name: "echo" },
    ]);
    expect(out[0]).toEqual({ id: "srvA/echo", name: "echo", suffixed: false });
    expect(out[1]?.name).toMatch(/^echo_[0-9a-f]{6}$/);
    expect(out[2]?.name).toMatch(/^echo_[0-9a-f]{6}$/);
    expect(new Set(out.map((p) => p.name)).size).toBe(3);
  });

  it("is deterministic: the same claim gets the same suffix every time", () => {
    const a = projectNames([
      { id: "x", name: "echo" },
      { id: "srvB/echo", name: "echo" },
    ]);
    const b = projectNames([
      { id: "y", name: "echo" },
      { id: "srvB/echo", name: "echo" },
    ]);
    expect(a[1]?.name).toBe(b[1]?.name);
  });

  it("never takes a reserved (built-in or local) name", () => {
    const [p] = projectNames([{ id: "s/read_file", name: "read_file" }], { reserved: ["read_file", "bash"] });
    expect(p?.name).not.toBe("read_file");
    expect(p?.name).toMatch(/^read_file_[0-9a-f]{6}$/);
  });

  it("stays within 64 characters when suffixing a long name", () => {
    const long = "a".repeat(64);
    const out = projectNames([
      { id: "1", name: long },
      { id: "2", name: long },
    ]);
    expect(out[1]?.name.length).toBeLessThanOrEqual(64);
    expect(out[1]?.name).not.toBe(long);
  });
});
