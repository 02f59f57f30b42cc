import { describe, expect, it } from "vitest";
import type { CommandFamily } from "./command-family";
import { COMMAND_FAMILIES, commandHandler, duplicateCommandNames, indexCommandFamilies } from "./command-table";

describe("the command table", () => {
  it("lists every name once across all families", () => {
    expect(duplicateCommandNames(COMMAND_FAMILIES)).toEqual([]);
  });

  it("refuses a table that lists a name twice, naming it and both families", () => {
    const noop = () => undefined;
    const families: CommandFamily[] = [
      { family: "a", rules: [{ names: ["chmod", "touch"], handler: noop }] },
      { family: "b", rules: [{ names: ["chmod"], handler: noop }] },
    ];
    expect(duplicateCommandNames(families)).toEqual([{ name: "chmod", families: ["a", "b"] }]);
    expect(() => indexCommandFamilies(families)).toThrow("names listed more than once: chmod (a, b)");
    const twiceInOne: CommandFamily[] = [
      {
        family: "a",
        rules: [
          { names: ["chmod"], handler: noop },
          { names: ["chmod"], handler: noop },
        ],
      },
    ];
    expect(() => indexCommandFamilies(twiceInOne)).toThrow("chmod (a, a)");
  });

  it("finds every listed name, prefixes such as mkfs.ext4, and nothing for an unknown program", () => {
    for (const { rules } of COMMAND_FAMILIES)
      for (const { names, handler } of rules)
        for (const name of names) expect(commandHandler(name), name).toBe(handler);
    expect(commandHandler("mkfs.ext4")).toBeDefined();
    expect(commandHandler("my-tool")).toBeUndefined();
  });

  it("has ten families, none empty", () => {
    expect(COMMAND_FAMILIES.map((f) => f.family)).toEqual([
      "read and text tools",
      "builds and toolchains",
      "file operations",
      "shell state",
      "wrappers",
      "shells and interpreters",
      "git",
      "package managers",
      "network",
      "the host system",
    ]);
    for (const f of COMMAND_FAMILIES) expect(f.rules.length, f.family).toBeGreaterThan(0);
  });
});
