import { CodeNavArgsSchema, CodeNavDetailsSchema } from "@berth/protocol";
import { fixedClass } from "../registry/define-tool";

/**
 * code_nav as callers see it, declared once: the eager registration (code-nav-tool.ts) and the
 * implementation loaded on first use (code-nav-impl.ts) are both built from it, and the lazy loader checks
 * they still agree.
 */
export const CODE_NAV_SURFACE = {
  name: "code_nav",
  description:
    "Navigate the code of the workspace through an index built in the sandbox (Universal Ctags definitions, imports). mode=symbol: definitions named query (Class.method narrows by scope) with path, line, kind, signature; mode=path: files matching a glob, /regex/flags or substring; mode=entries: entry points (package.json main/bin/exports, pyproject scripts, then conventional files); mode=outline: a file's symbols in line order; mode=deps: a file's imports resolved to workspace files, plus external modules; mode=dependents: the files that import it. path narrows symbol/path/entries to a folder; limit caps results (default 50).",
  argsSchema: CodeNavArgsSchema,
  resultSchema: CodeNavDetailsSchema,
  classify: fixedClass("read"),
} as const;
