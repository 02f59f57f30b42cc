import type { CommandFamily, CommandHandler } from "./command-family";
import { FILE_COMMANDS } from "./families/file-commands";
import { GIT_COMMANDS } from "./families/git-commands";
import { INTERPRETER_COMMANDS } from "./families/interpreter-commands";
import { NETWORK_COMMANDS } from "./families/network-commands";
import { PACKAGE_MANAGER_COMMANDS } from "./families/package-manager-commands";
import { SHELL_STATE_COMMANDS } from "./families/shell-state-commands";
import { SYSTEM_COMMANDS } from "./families/system-commands";
import { TEXT_COMMANDS } from "./families/text-commands";
import { TOOLCHAIN_COMMANDS } from "./families/toolchain-commands";
import { WRAPPER_COMMANDS } from "./families/wrapper-commands";

/** Every command Berth knows, family by family; a name not here is an unrecognised program. */
export const COMMAND_FAMILIES: readonly CommandFamily[] = [
  TEXT_COMMANDS,
  TOOLCHAIN_COMMANDS,
  FILE_COMMANDS,
  SHELL_STATE_COMMANDS,
  WRAPPER_COMMANDS,
  INTERPRETER_COMMANDS,
  GIT_COMMANDS,
  PACKAGE_MANAGER_COMMANDS,
  NETWORK_COMMANDS,
  SYSTEM_COMMANDS,
];

/** Each name listed twice, with the families that list it (empty when the table is sound). */
export function duplicateCommandNames(families: readonly CommandFamily[]): { name: string; families: string[] }[] {
  const seen = new Map<string, string[]>();
  for (const { family, rules, prefixes } of families) {
    for (const name of [...rules.flatMap((r) => r.names), ...(prefixes ?? []).map((p) => `${p.prefix}*`)]) {
      seen.set(name, [...(seen.get(name) ?? []), family]);
    }
  }
  return [...seen].filter(([, where]) => where.length > 1).map(([name, where]) => ({ name, families: where }));
}

/** The lookup for a table of families; a name listed twice is refused, so no entry silently wins over another. */
export function indexCommandFamilies(families: readonly CommandFamily[]): (name: string) => CommandHandler | undefined {
  const duplicates = duplicateCommandNames(families);
  if (duplicates.length > 0) {
    const list = duplicates.map((d) => `${d.name} (${d.families.join(", ")})`).join("; ");
    throw new Error(`command table: names listed more than once: ${list}`);
  }
  const byName = new Map(families.flatMap((f) => f.rules.flatMap((r) => r.names.map((n) => [n, r.handler] as const))));
  const prefixes = families.flatMap((f) => f.prefixes ?? []);
  return (name) => prefixes.find((p) => name.startsWith(p.prefix))?.handler ?? byName.get(name);
}

/** The handler for a normalised command name (`sudo`, `mkfs.ext4`), or undefined for an unknown program. */
export const commandHandler = indexCommandFamilies(COMMAND_FAMILIES);
