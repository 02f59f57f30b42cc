import { z } from "zod";
import { noNul } from "./lenient";

export const CODE_NAV_MODES = ["symbol", "path", "entries", "outline", "deps", "dependents"] as const;
export const CodeNavModeSchema = z.enum(CODE_NAV_MODES);
export type CodeNavMode = z.infer<typeof CodeNavModeSchema>;

export const CODE_NAV_MAX_LIMIT = 1000;

/** Modes whose query names a file (the file may come as `path` instead). */
export const CODE_NAV_FILE_MODES: readonly CodeNavMode[] = ["outline", "deps", "dependents"];

export const CodeNavArgsSchema = z
  .object({
    mode: CodeNavModeSchema,
    /** symbol: a name; path: a glob, `/regex/flags` or substring; outline/deps/dependents: a file. */
    query: z
      .string()
      .max(1024, "must be at most 1024 characters")
      .refine(noNul, "must not contain NUL bytes")
      .default(""),
    /** A folder that narrows symbol/path/entries, or the file for outline/deps/dependents. */
    path: z
      .string()
      .min(1, "must not be empty")
      .max(4096, "must be at most 4096 characters")
      .refine(noNul, "must not contain NUL bytes")
      .optional(),
    limit: z
      .number()
      .int()
      .min(1, "must be at least 1")
      .max(CODE_NAV_MAX_LIMIT, `must be at most ${CODE_NAV_MAX_LIMIT}`)
      .default(50),
  })
  .superRefine((args, ctx) => {
    const needsQuery = args.mode === "symbol" || args.mode === "path";
    const needsFile = CODE_NAV_FILE_MODES.includes(args.mode);
    if (needsQuery && args.query.trim() === "") {
      ctx.addIssue({ code: "custom", path: ["query"], message: `must not be empty for mode "${args.mode}"` });
    }
    if (needsFile && args.query.trim() === "" && args.path === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["query"],
        message: `must name a file for mode "${args.mode}" (or give it as path)`,
      });
    }
  });
export type CodeNavArgs = z.infer<typeof CodeNavArgsSchema>;

export const CodeSymbolSchema = z.object({
  name: z.string(),
  path: z.string(),
  line: z.number().int(),
  kind: z.string(),
  /** The definition's source line, trimmed and cut at 200 characters. */
  signature: z.string(),
  /** The enclosing class/module/namespace, when the parser reports one. */
  scope: z.string().optional(),
  endLine: z.number().int().optional(),
});
export type CodeSymbol = z.infer<typeof CodeSymbolSchema>;

export const CodeNavEntrySchema = z.object({
  path: z.string(),
  /** Why it is an entry: `package.json main`, `package.json bin <name>`, `package.json exports <key>`, `conventional`. */
  reason: z.string(),
  /** The manifest that declared it (package.json or pyproject.toml), when one did. */
  manifest: z.string().optional(),
  exists: z.boolean(),
});
export type CodeNavEntry = z.infer<typeof CodeNavEntrySchema>;

export const CodeNavImportSchema = z.object({
  /** The import as written (`./util`, `@acme/core`, `..models`). */
  specifier: z.string(),
  line: z.number().int(),
  /** The workspace file (or Go package folder) it resolves to. */
  path: z.string(),
});
export type CodeNavImport = z.infer<typeof CodeNavImportSchema>;

export const CodeNavDependentSchema = z.object({
  path: z.string(),
  line: z.number().int(),
  specifier: z.string(),
});
export type CodeNavDependent = z.infer<typeof CodeNavDependentSchema>;

const base = { query: z.string(), total: z.number().int(), truncated: z.boolean() };

export const CodeNavDetailsSchema = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("symbol"), ...base, symbols: z.array(CodeSymbolSchema) }),
  z.object({
    mode: z.literal("path"),
    ...base,
    matcher: z.enum(["glob", "regex", "substring"]),
    files: z.array(z.string()),
  }),
  z.object({ mode: z.literal("entries"), ...base, entries: z.array(CodeNavEntrySchema) }),
  z.object({
    mode: z.literal("outline"),
    ...base,
    path: z.string(),
    language: z.string(),
    symbols: z.array(CodeSymbolSchema),
  }),
  z.object({
    mode: z.literal("deps"),
    ...base,
    path: z.string(),
    internal: z.array(CodeNavImportSchema),
    external: z.array(z.string()),
    /** Relative imports that name no file in the workspace. */
    unresolved: z.array(z.string()),
  }),
  z.object({ mode: z.literal("dependents"), ...base, path: z.string(), dependents: z.array(CodeNavDependentSchema) }),
]);
export type CodeNavDetails = z.infer<typeof CodeNavDetailsSchema>;

/** Details of a query sent to the wrong mode (`error.code` wrong_mode): the mode to use instead. */
export const CodeNavRedirectSchema = z.object({ redirect: CodeNavModeSchema, query: z.string() });
export type CodeNavRedirect = z.infer<typeof CodeNavRedirectSchema>;
