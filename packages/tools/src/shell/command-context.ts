import type { SeverityLevel } from "../admission/severity";

/** One word of a simple command: its value when static, undefined when it expands at run time. */
export interface Arg {
  readonly value: string | undefined;
  /** Source text, used when the value is not static (e.g. `$HOME`, `$(pwd)`). */
  readonly text: string;
}

/** Where a command reads stdin from; shells and interpreters run what they read. */
export type Stdin =
  | { readonly kind: "none" }
  | { readonly kind: "pipe" }
  | { readonly kind: "file"; readonly path: string | undefined }
  | { readonly kind: "text"; readonly text: string | undefined };

/** What a command handler sees and can report; implemented by the walker in classify-command.ts. */
export interface CommandContext {
  /** Normalised command name: `/usr/bin/sudo` → `sudo`. */
  readonly name: string;
  readonly args: readonly Arg[];
  readonly stdin: Stdin;
  /** The name was a workspace path such as `.venv/bin/pip` (a project-local tool). */
  readonly local: boolean;
  add(level: SeverityLevel, reason?: string): void;
  /** Code we cannot see before it runs: unknown, and always asked about. */
  unseen(reason: string): void;
  /** Classifies `argv` as a command this one runs (sudo, env, xargs, find -exec…). */
  run(argv: readonly Arg[], stdin?: Stdin): void;
  /** Parses and classifies shell source (bash -c, eval, trap…); undefined means not static. */
  runSource(source: string | undefined, what: string): void;
  /** Reports a file the command writes; outside the workspace is system_modify. */
  writes(path: string | undefined, what: string): void;
  /** true inside the workspace (or a writable root), false outside, undefined when unknown. */
  isInside(path: string): boolean | undefined;
  setCwd(path: string | undefined): void;
  /** A variable that changes what later commands run (PATH, LD_PRELOAD…) was set. */
  taint(variable: string): void;
}

export const staticArg = (value: string): Arg => ({ value, text: value });
