import type { CommandContext } from "./command-context";

/**
 * Per-command knowledge: what a program does given its parsed arguments. A handler reports findings
 * through the context; a name with no handler is an unrecognised program (execute, not recognised).
 */
export type CommandHandler = (c: CommandContext) => void;

/** Programs that share one handler. */
export interface CommandRule {
  readonly names: readonly string[];
  readonly handler: CommandHandler;
}

/** The commands of one family (git, package managers, file operations…), as data: no registration. */
export interface CommandFamily {
  readonly family: string;
  readonly rules: readonly CommandRule[];
  /** Names recognised by how they start (`mkfs.ext4`), looked up before the exact names. */
  readonly prefixes?: readonly { readonly prefix: string; readonly handler: CommandHandler }[];
}

/** A test, build or read-ish program: execute, recognised, nothing more to it. */
export const recognised: CommandHandler = (c) => c.add("execute-recognised");
