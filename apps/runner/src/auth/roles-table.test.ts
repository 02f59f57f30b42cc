import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PERMISSIONS, ROLES } from "./authorize";
import { ROLES_BEGIN, ROLES_END, withRolesTable } from "./roles-table";

const API_MD = path.resolve(import.meta.dirname, "../../../../docs/api.md");

describe("docs/api.md Roles table", () => {
  const markdown = fs.readFileSync(API_MD, "utf8");

  it("is the table authorize() enforces (run `npm run docs:roles` after changing PERMISSIONS)", () => {
    expect(markdown).toBe(withRolesTable(markdown));
  });

  it("reads back, cell by cell, as PERMISSIONS", () => {
    const section = markdown.slice(markdown.indexOf(ROLES_BEGIN) + ROLES_BEGIN.length, markdown.indexOf(ROLES_END));
    const rows = section
      .trim()
      .split("\n")
      .slice(2)
      .map((line) =>
        line
          .split("|")
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    const parsed: Record<string, Record<string, Record<string, string>>> = {};
    for (const [resource, action, ...cells] of rows) {
      (parsed[resource!] ??= {})[action!] = Object.fromEntries(
        ROLES.map((role, i) => [role, cells[i] === "—" ? "none" : cells[i]!]),
      );
    }
    const expected = Object.fromEntries(
      Object.entries(PERMISSIONS).map(([resource, actions]) => [
        resource,
        Object.fromEntries(
          Object.entries(actions).map(([action, rule]) => [
            action,
            Object.fromEntries(ROLES.map((role) => [role, rule[role]])),
          ]),
        ),
      ]),
    );
    expect(parsed).toEqual(expected);
  });
});
