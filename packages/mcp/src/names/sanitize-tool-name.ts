/** Longest tool name exposed to models (docs/tools.md "Router precedence"); many model APIs cap at 64. */
export const MAX_TOOL_NAME_LENGTH = 64;

/**
 * Sanitises an MCP tool name for models, per the spec: `[^a-zA-Z0-9_-]` → `_`, runs of `_` collapsed,
 * `_` trimmed from both ends, `tool_` prefixed when not starting with a letter, then cut to 64.
 */
export function sanitizeToolName(raw: string): string {
  let name = sanitizeNameSegment(raw);
  if (!/^[a-zA-Z]/.test(name)) name = name ? `tool_${name}` : "tool";
  return cutToolName(name);
}

/** Cuts to the limit and drops a trailing `_` the cut may leave. */
export function cutToolName(name: string, max = MAX_TOOL_NAME_LENGTH): string {
  return name.length <= max ? name : name.slice(0, max).replace(/_+$/, "");
}

/** The character rules alone (no prefix, no cut): for the tool part of a composed name. */
export function sanitizeNameSegment(raw: string): string {
  return raw
    .replace(/[^a-zA-Z0-9_-]/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_+|_+$/g, "");
}
