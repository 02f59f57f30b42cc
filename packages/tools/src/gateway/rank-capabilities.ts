import type { ResolvedTool } from "../router/tool-router";

/** The first sentence of a description: what `find` shows. */
export function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(\s|$)/s.exec(text.trim());
  return (match?.[1] ?? text.trim()).replace(/\s+/g, " ");
}

/**
 * Ranks tools for `gateway find`: exact name first, then the whole query in the name or description,
 * then by how many query terms hit. Ties keep name order. An empty query lists everything.
 */
export function rankCapabilities(tools: readonly ResolvedTool[], query: string | undefined): ResolvedTool[] {
  const q = (query ?? "").trim().toLowerCase();
  if (!q) return [...tools].sort((a, b) => a.spec.name.localeCompare(b.spec.name));
  const terms = q.split(/[\s_\-./]+/).filter(Boolean);
  const scored = tools
    .map((tool) => {
      const name = tool.spec.name.toLowerCase();
      const description = tool.spec.description.toLowerCase();
      let score = 0;
      if (name === q) score = 1_000_000;
      else if (name.includes(q)) score = 100_000;
      else if (description.includes(q)) score = 10_000;
      for (const term of terms) {
        if (name.includes(term)) score += 100;
        else if (description.includes(term)) score += 10;
      }
      return { tool, score };
    })
    .filter((entry) => entry.score > 0);
  scored.sort((a, b) => b.score - a.score || a.tool.spec.name.localeCompare(b.tool.spec.name));
  return scored.map((entry) => entry.tool);
}
