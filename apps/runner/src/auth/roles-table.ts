import { PERMISSIONS, RESOURCES, ROLES, type Rule } from "./authorize";

export const ROLES_BEGIN = "<!-- roles:begin -->";
export const ROLES_END = "<!-- roles:end -->";

const CELL = { any: "any", own: "own", none: "—" } as const;

/** docs/api.md's Roles table, one row per resource × action, rendered from PERMISSIONS. */
export function rolesTable(): string {
  const header = ["Resource", "Action", ...ROLES, "Routes and events", "Why"];
  const rows = RESOURCES.flatMap((resource) =>
    Object.entries(PERMISSIONS[resource] as Record<string, Rule>).map(([action, rule]) => [
      resource,
      action,
      ...ROLES.map((role) => CELL[rule[role]]),
      rule.by.map((route) => `\`${route}\``).join(", "),
      rule.why ?? "",
    ]),
  );
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** `markdown` with the text between the roles markers replaced by the current table. */
export function withRolesTable(markdown: string): string {
  const begin = markdown.indexOf(ROLES_BEGIN);
  const end = markdown.indexOf(ROLES_END);
  if (begin < 0 || end < begin) throw new Error(`docs/api.md: the markers ${ROLES_BEGIN} … ${ROLES_END} are missing`);
  return `${markdown.slice(0, begin + ROLES_BEGIN.length)}\n${rolesTable()}\n${markdown.slice(end)}`;
}
