import { AppError, BUILTIN_TOOL_NAMES } from "@berth/protocol";
import type { AnyToolSpec } from "./tool-spec";

/**
 * The runner's start check, failing closed: every built-in the tool table declares has exactly one spec
 * under its own name (lazy ones included: their surface is registered before any code loads), and nothing
 * else poses as a built-in. A runner that would list a tool it cannot run does not start.
 */
export function assertBuiltinsRegistered(specs: readonly AnyToolSpec[]): void {
  const problems: string[] = [];
  const byName = new Map<string, number>();
  for (const spec of specs) byName.set(spec.name, (byName.get(spec.name) ?? 0) + 1);
  for (const name of BUILTIN_TOOL_NAMES) {
    const count = byName.get(name) ?? 0;
    if (count === 0) problems.push(`${name} is declared but not registered`);
    if (count > 1) problems.push(`${name} is registered ${count} times`);
  }
  const declared = new Set<string>(BUILTIN_TOOL_NAMES);
  for (const name of byName.keys())
    if (!declared.has(name)) problems.push(`${name} is registered as a built-in but not declared`);
  if (problems.length > 0) {
    throw new AppError({ code: "internal", message: `built-in tools: ${problems.join("; ")}` });
  }
}
