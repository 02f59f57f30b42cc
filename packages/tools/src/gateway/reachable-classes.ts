import type { ActionClass, Autonomy } from "@berth/protocol";
import { decide } from "../admission/decide";
import { shownClassOf } from "../registry/define-tool";
import type { AnyToolSpec } from "../registry/tool-spec";

/**
 * The action classes a tool that calls others (gateway, dispatch) can reach in a session: the class of
 * every tool in the session's catalogue that its autonomy does not deny outright (an `ask` is reachable:
 * an operator may approve it). What MCP annotations of those tools must admit to — a session at
 * read-only reaches only reads, so only there may gateway say read-only. An MCP server that could not be
 * listed (`unlistedServers`) may have any tool: it counts as `unknown`.
 */
export function reachableClasses(
  catalogue: readonly AnyToolSpec[],
  autonomy: Autonomy,
  opts: { unlistedServers?: number } = {},
): ActionClass[] {
  const classes = new Set<ActionClass>();
  if ((opts.unlistedServers ?? 0) > 0 && decide("unknown", false, autonomy) !== "deny") classes.add("unknown");
  for (const spec of catalogue) {
    // A tool that reaches others adds nothing of its own: what it reaches is in the catalogue already.
    if (spec.reachesOthers) continue;
    const actionClass = shownClassOf(spec);
    if (decide(actionClass, false, autonomy) !== "deny") classes.add(actionClass);
  }
  return [...classes].sort();
}
