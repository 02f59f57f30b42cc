import {
  SKILLS_ROOT,
  toolFailure,
  type ContextArgs,
  type ToolResult,
} from "@berth/protocol";
import { MIN_OBSERVATION_BYTES } from "../budget/observation-limits";
import { recallHint } from "../budget/truncation-notice";
import { defineTool, jsonResult } from "../registry/define-tool";
import { CONTEXT_SURFACE } from "./context-surface";
import { isRefused, type ContextHost } from "./context-host";

const DEFAULT_RULES_PAGE = 20;
/** Room a recall page leaves for its own fields around the content. */
const RECALL_OVERHEAD_BYTES = 600;

/** The frame a loaded skill's body comes in: where its paths start, and where the skill itself can be read. */
export function skillHeader(name: string, workspaceRoot: string): string {
  return `Skill ${name}. Workspace root: ${workspaceRoot}. Paths in this skill are relative to the workspace root. The skill is mounted read-only at ${SKILLS_ROOT}/${name}/ (SKILL.md; read_file, grep and glob read it there).\n---\n`;
}

/** The implementation, loaded on the first context call (context-tool.ts registers only the surface). */
export const contextImplementation = defineTool({
  ...CONTEXT_SURFACE,
  async run(args, ctx) {
    const host = ctx.context;
    if (!host) return toolFailure("unavailable", "context: no session context here");
    switch (args.scope) {
      case "workspace":
        return workspace(host);
      case "settings":
        return settings(host, args);
      case "skills":
        return skills(host, args);
      case "recall":
        return recall(host, args);
      case "budget":
        return jsonResult({ scope: "budget", ...host.budget() });
    }
  },
});

async function workspace(host: ContextHost): Promise<ToolResult> {
  const [summary, skills, functionTools] = await Promise.all([host.workspaceSummary(), host.skills(), host.functionTools?.()]);
  const active = skills.filter((skill) => skill.active).length;
  const skillCatalog = `${skills.length} skill${skills.length === 1 ? "" : "s"} (${active} active): context {"scope":"skills"} lists them`;
  return jsonResult({ scope: "workspace", ...summary, skillCatalog, ...(functionTools ? { functionTools } : {}) });
}

async function settings(host: ContextHost, args: ContextArgs): Promise<ToolResult> {
  const current = await host.settings();
  const query = args.query?.toLowerCase();
  const matches = (value: unknown) => !query || JSON.stringify(value).toLowerCase().includes(query);
  const rules = current.policyRules.filter(matches);
  const offset = args.offset ?? 0;
  const limit = args.limit ?? DEFAULT_RULES_PAGE;
  const page = rules.slice(offset, offset + limit);
  const limits = Object.fromEntries(
    Object.entries(current.limits).filter(([name, value]) => matches({ [name]: value })),
  );
  return jsonResult({
    scope: "settings",
    sessionId: current.sessionId,
    autonomy: current.autonomy,
    network: current.network,
    allowedTools: current.allowedTools,
    limits,
    policyRules: page,
    rulesTotal: rules.length,
    offset,
    nextOffset: offset + page.length < rules.length ? offset + page.length : null,
  });
}

async function skills(host: ContextHost, args: ContextArgs): Promise<ToolResult> {
  if (!args.name) return jsonResult({ scope: "skills", skills: await host.skills() });
  if (args.activate !== undefined) {
    const changed = await host.setSkillActive(args.name, args.activate);
    if (isRefused(changed)) return toolFailure(changed.code ?? "denied", `context: ${changed.refused}`);
    return jsonResult({ scope: "skills", skill: changed });
  }
  const loaded = await host.loadSkill(args.name);
  if (isRefused(loaded)) return toolFailure(loaded.code ?? "not_found", `context: ${loaded.refused}`);
  return jsonResult({
    scope: "skills",
    skill: loaded.skill,
    body: skillHeader(args.name, host.workspaceRoot) + loaded.body,
  });
}

async function recall(host: ContextHost, args: ContextArgs): Promise<ToolResult> {
  if (!args.ref)
    return toolFailure(
      "invalid_arguments",
      "context: ref is required for scope=recall (the ref a truncated result's notice named)",
    );
  const budget = host.budget();
  const room = Math.min(budget.caps.context ?? MIN_OBSERVATION_BYTES, budget.remainingBytes) - RECALL_OVERHEAD_BYTES;
  let want = Math.min(args.limit ?? Number.MAX_SAFE_INTEGER, Math.max(room, 1));
  const offset = args.offset ?? 0;
  // JSON escapes (quotes, control characters) make a page's text longer than its bytes: halve until it fits.
  for (;;) {
    const page = await host.recall(args.ref, offset, want);
    if (isRefused(page)) return toolFailure(page.code ?? "not_found", `context: ${page.refused}`);
    const end = page.offset + page.bytes;
    const done = end >= page.totalBytes;
    const result = jsonResult({
      scope: "recall",
      ref: page.ref,
      source: page.source,
      offset: page.offset,
      bytes: page.bytes,
      totalBytes: page.totalBytes,
      done,
      nextOffset: done ? null : end,
      ...(done ? {} : { next: recallHint(page.ref, end) }),
      content: page.content,
    });
    if (Buffer.byteLength(result.output) <= room + RECALL_OVERHEAD_BYTES || want <= 1) return result;
    want = Math.max(1, Math.floor(want / 2));
  }
}
