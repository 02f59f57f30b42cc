import { ContextArgsSchema, ContextDetailsSchema } from "@berth/protocol";
import { fixedClass } from "../registry/define-tool";

/**
 * context as callers see it, declared once: the eager registration (context-tool.ts) and the implementation
 * loaded on first use (context-impl.ts) are both built from it, and the lazy loader checks they still agree.
 */
export const CONTEXT_SURFACE = {
  name: "context",
  description:
    "The session's environment in one place. scope=workspace: git state, top-level tree, files per language, AGENTS.md; scope=settings: autonomy, network, limits and policy rules (query, offset, limit); scope=skills: list skills, or load one {name}, or {name, activate} to turn it on or off; scope=recall {ref, offset?}: the rest of a truncated result; scope=budget: what this turn has read of its observation budget.",
  argsSchema: ContextArgsSchema,
  resultSchema: ContextDetailsSchema,
  // Activating a skill only narrows what this session may call; it reads, and writes nothing in the workspace.
  classify: fixedClass("read"),
} as const;
