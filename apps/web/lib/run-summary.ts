import { BuiltinTool } from "@berth/protocol";

/**
 * What a run ran, in one line for lists and headers: bash's command, or run_script's interpreter, script
 * and arguments. The args are the run's stored (redacted) ones, so an env value never shows here.
 */
export function runSummary(tool: string, args: unknown): string {
  const a = args && typeof args === "object" ? (args as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  if (tool === BuiltinTool.bash && str(a.command)) return str(a.command);
  if (tool === BuiltinTool.run_script && str(a.script))
    return [str(a.interpreter), ...list(a.interpreterArgs), str(a.script), ...list(a.args).map(quote)]
      .filter(Boolean)
      .join(" ");
  return tool;
}

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/** A stored run cannot be sent again as it was when its env values were masked when stored. */
export function rerunBlocker(args: unknown): string | null {
  const env = args && typeof args === "object" ? (args as { env?: unknown }).env : undefined;
  if (env && typeof env === "object" && Object.keys(env).length > 0)
    return "its env values are not stored (they are masked): run it again from the IDE";
  return null;
}
