import { BUILTIN_TOOL_NAMES, BUILTIN_TOOL_TABLE } from "@berth/protocol";

/** Where docs/tools.md holds the rendered tool table; a unit test checks what is between them. */
export const TOOL_TABLE_DOC_START = "<!-- tool-table:start (generated from BUILTIN_TOOL_TABLE; packages/tools/src/registry/render-tool-table.ts) -->";
export const TOOL_TABLE_DOC_END = "<!-- tool-table:end -->";

/** The tool table as the docs show it: one Markdown row per built-in, in the table's order. */
export function renderToolTable(): string {
  const rows = BUILTIN_TOOL_NAMES.map((name) => {
    const facts = BUILTIN_TOOL_TABLE[name];
    return `| ${name} | ${facts.placement} | ${facts.runsIn} | ${facts.concurrency} | ${facts.actionClass} | ${facts.runKind} |`;
  });
  return ["| tool | placement | runs in | concurrency | surface class | run kind |", "|---|---|---|---|---|---|", ...rows].join("\n");
}
