import { posix } from "node:path";
import { parse } from "unbash";
import type { CallerKind, Decision, PolicyRule } from "@berth/protocol";
import type { SimpleCommand } from "../shell";

/** What policy rules look at: the tool, and for shell tools the parsed simple commands. */
export interface PolicyInput {
  tool: string;
  /** Simple commands of a bash/run_script call; undefined for tools that run no command line. */
  commands?: readonly SimpleCommand[] | undefined;
  /** Who calls, for a rule's `appliesTo`; undefined (a rule's own examples) is matched by every target. */
  caller?: CallerKind | undefined;
  /**
   * The call runs a workspace script (a function tool): an allow rule applies only when it names the script's
   * sha256 and that is `scriptSha256` (the script as the runner hashed it for this call; absent when it did not).
   */
  bindsScript?: boolean | undefined;
  scriptSha256?: string | undefined;
}

export interface PolicyOutcome {
  /** undefined: no rule applies, autonomy decides. */
  effect: Decision | undefined;
  ruleId?: string;
  reason?: string;
}

const STANDARD_BIN_DIRS = new Set(["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin"]);
const prefixCache = new Map<string, readonly string[] | string>();

/**
 * A command prefix as words, parsed like a command (`git  push` and `"git" push` are the same);
 * a string is the error for a prefix that is not one simple command of static words.
 */
export function parseCommandPrefix(prefix: string): readonly string[] | string {
  const cached = prefixCache.get(prefix);
  if (cached !== undefined) return cached;
  const result = parsePrefix(prefix);
  if (prefixCache.size > 1000) prefixCache.clear();
  prefixCache.set(prefix, result);
  return result;
}

function parsePrefix(prefix: string): readonly string[] | string {
  const script = parse(prefix);
  const bad = `commandPrefix must be one simple command of plain words (got ${JSON.stringify(prefix)})`;
  if (script.errors?.length || script.commands.length !== 1) return bad;
  const cmd = script.commands[0]!.command;
  if (cmd.type !== "Command" || cmd.name === undefined || cmd.prefix.length > 0) return bad;
  const words: string[] = [];
  for (const w of [cmd.name, ...cmd.suffix]) {
    if (
      w.type !== "Word" ||
      (w.parts ?? []).some((p) => p.type !== "Literal" && p.type !== "SingleQuoted" && p.type !== "DoubleQuoted")
    ) {
      return bad;
    }
    words.push(w.value);
  }
  const first = words[0]!;
  if (first.includes("/") && STANDARD_BIN_DIRS.has(posix.dirname(first))) words[0] = posix.basename(first);
  return words;
}

/** Token-boundary prefix: `git push` matches `git push -f` but never `git pushx`. */
function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  if (words.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (words[i] !== prefix[i]) return false;
  return true;
}

const toolMatches = (rule: PolicyRule, tool: string): boolean => rule.tool === "*" || rule.tool === tool;

/** `people` are browser callers (a person signed in); `agents` are MCP agents and API-token scripts. */
export function targetMatches(rule: Pick<PolicyRule, "appliesTo">, caller: CallerKind | undefined): boolean {
  const target = rule.appliesTo ?? "everyone";
  if (target === "everyone" || caller === undefined) return true;
  return target === "people" ? caller === "browser" : caller !== "browser";
}

/**
 * Whether a rule applies to a call. deny/ask rules apply when any simple command, in any of its
 * unwrapped forms (`sudo x` → `x`), starts with the prefix. An allow rule applies only when every
 * simple command itself starts with the prefix: allowing `npm test` must not allow `npm test && curl …`.
 */
export function ruleApplies(rule: PolicyRule, input: PolicyInput): boolean {
  if (!toolMatches(rule, input.tool) || !targetMatches(rule, input.caller)) return false;
  if (rule.commandPrefix === undefined) return true;
  const prefix = parseCommandPrefix(rule.commandPrefix);
  if (typeof prefix === "string" || input.commands === undefined || input.commands.length === 0) return false;
  if (rule.effect === "allow") return input.commands.every((c) => startsWith(c.forms[0] ?? c.words, prefix));
  return input.commands.some((c) => startsWith(c.words, prefix) || c.forms.some((form) => startsWith(form, prefix)));
}

/** deny wins over ask over allow; allow needs every simple command covered by allow rules. */
export function evaluatePolicy(rules: readonly PolicyRule[], input: PolicyInput): PolicyOutcome {
  for (const effect of ["deny", "ask"] as const) {
    const rule = rules.find((r) => r.effect === effect && ruleApplies(r, input));
    if (rule)
      return { effect, ruleId: rule.id, reason: `policy rule ${rule.id} (${describeRule(rule)}) says ${effect}` };
  }
  const allows = rules.filter((r) => r.effect === "allow" && toolMatches(r, input.tool) && targetMatches(r, input.caller) && trustsScript(r, input));
  if (allows.length === 0) return { effect: undefined };
  const toolWide = allows.find((r) => r.commandPrefix === undefined);
  if (toolWide)
    return {
      effect: "allow",
      ruleId: toolWide.id,
      reason: `policy rule ${toolWide.id} (${describeRule(toolWide)}) says allow`,
    };
  const commands = input.commands ?? [];
  if (commands.length === 0) return { effect: undefined };
  let first: PolicyRule | undefined;
  for (const command of commands) {
    const rule = allows.find((r) => ruleApplies(r, { tool: input.tool, commands: [command], caller: input.caller }));
    if (!rule) return { effect: undefined };
    first ??= rule;
  }
  return {
    effect: "allow",
    ruleId: first!.id,
    reason: `policy rule ${first!.id} (${describeRule(first!)}) says allow`,
  };
}

/**
 * Whether an allow rule covers the script the call runs: a function tool's script is the workspace's to change (an
 * agent may rewrite it), so only a rule naming its bytes allows it, and a rule naming bytes allows nothing else.
 */
function trustsScript(rule: PolicyRule, input: PolicyInput): boolean {
  if (rule.scriptSha256 === undefined) return input.bindsScript !== true;
  return input.bindsScript === true && input.scriptSha256 === rule.scriptSha256;
}

export const describeRule = (rule: PolicyRule): string =>
  `tool ${rule.tool}${rule.commandPrefix === undefined ? "" : `, prefix ${JSON.stringify(rule.commandPrefix)}`}` +
  (rule.scriptSha256 === undefined ? "" : `, script sha256 ${rule.scriptSha256.slice(0, 12)}…`) +
  (rule.appliesTo && rule.appliesTo !== "everyone" ? `, for ${rule.appliesTo}` : "");
