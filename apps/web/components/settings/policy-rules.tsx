"use client";
import { useState, type FormEvent } from "react";
import { BUILTIN_TOOLS, POLICY_TARGETS, createPolicyRule, deletePolicyRule, listPolicyRules, type PolicyEffect, type PolicyRule, type PolicyTarget } from "@/lib/api";
import { confirmThen, useAction } from "@/components/ui/use-action";
import { useAsync } from "@/components/ui/use-async";
import { EmptyState, StatusBadge } from "@/components/ui/states";
import { Loaded } from "@/components/ui/loaded";

const EFFECTS: PolicyEffect[] = ["ask", "deny", "allow"];

const TARGET_HELP: Record<PolicyTarget, string> = {
  everyone: "everyone: agents, scripts and people",
  agents: "agents and scripts (MCP clients and API tokens)",
  people: "people in the browser (the IDE, terminal, ▶ Run)",
};

/** Tools whose rules match command lines: without a prefix such a rule matches every command. */
const SHELL_TOOLS = new Set(["bash", "run_script", "*"]);

/** One example command per line; blank lines are not examples. */
const examplesOf = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * Operators' policy rules: checked on every call before autonomy (docs/tools.md). A rule's examples are
 * checked by the runner when it is saved, and its message names the example that does not fit. A rule
 * targets agents and scripts, people, or everyone; a shell rule with no prefix matches every command, so
 * the form sends it only when "every command" is ticked (an empty prefix alone is refused).
 */
export function PolicyRules({ canEdit }: { canEdit: boolean }) {
  const rules = useAsync(listPolicyRules, []);
  const [tool, setTool] = useState("bash");
  const [commandPrefix, setCommandPrefix] = useState("");
  const [effect, setEffect] = useState<PolicyEffect>("ask");
  const [appliesTo, setAppliesTo] = useState<PolicyTarget>("everyone");
  const [matchAll, setMatchAll] = useState(false);
  const [scriptSha256, setScriptSha256] = useState("");
  const shell = SHELL_TOOLS.has(tool.trim());
  const [mustMatch, setMustMatch] = useState("");
  const [mustNotMatch, setMustNotMatch] = useState("");
  const saving = useAction();

  const save = (event: FormEvent) => {
    event.preventDefault();
    void saving.run(async () => {
      await createPolicyRule({
        tool: tool.trim(),
        // Sent as typed: the runner refuses a blank prefix instead of reading it as "every command".
        ...(shell && matchAll ? { matchAll: true } : commandPrefix !== "" ? { commandPrefix } : {}),
        effect,
        appliesTo,
        // A function tool is trusted by its script's bytes: the runner refuses a hash on any other rule.
        ...(!shell && scriptSha256.trim() !== "" ? { scriptSha256: scriptSha256.trim() } : {}),
        mustMatch: examplesOf(mustMatch),
        mustNotMatch: examplesOf(mustNotMatch),
      });
      setCommandPrefix("");
      setScriptSha256("");
      setMatchAll(false);
      setMustMatch("");
      setMustNotMatch("");
      await rules.reload();
    });
  };

  const remove = (rule: PolicyRule) =>
    confirmThen(`Delete the rule "${describe(rule)}"? Calls it matched fall back to the session's autonomy.`, () => deletePolicyRule(rule.id), rules.reload);

  return (
    <section className="card" data-testid="policy-rules">
      <div className="card-title">
        <h2>Policy rules</h2>
        <span className="muted tiny">Checked on every call before the session&apos;s autonomy: deny wins, then ask, then allow.</span>
      </div>
      <Loaded
        state={rules}
        loading="Loading rules…"
        empty={
          <EmptyState title="No policy rules" testId="policy-rules-empty">
            Every call is judged by its session&apos;s autonomy alone.{canEdit ? " Add a rule below to always ask, deny or allow a tool or a command." : ""}
          </EmptyState>
        }
      >
        {(list) => (
          <table className="table compact" data-testid="policy-rules-table">
            <thead>
              <tr>
                <th>Effect</th>
                <th>For</th>
                <th>Tool</th>
                <th>Command prefix</th>
                <th>Examples</th>
                <th>By</th>
                {canEdit ? <th /> : null}
              </tr>
            </thead>
            <tbody>
              {list.map((rule) => (
                <tr key={rule.id} data-testid="policy-rule-row">
                  <td>
                    <StatusBadge value={rule.effect} />
                  </td>
                  <td data-testid="policy-rule-target" title={TARGET_HELP[rule.appliesTo ?? "everyone"]}>
                    {rule.appliesTo ?? "everyone"}
                  </td>
                  <td className="mono">{rule.tool}</td>
                  <td className="mono">
                    {rule.commandPrefix ?? <span className="muted">{SHELL_TOOLS.has(rule.tool) ? "every command" : "any"}</span>}
                    {rule.scriptSha256 ? (
                      <div className="tiny" title={rule.scriptSha256} data-testid="policy-rule-script">
                        <span className="muted">script</span> {rule.scriptSha256.slice(0, 12)}…
                      </div>
                    ) : null}
                  </td>
                  <td className="tiny">
                    {rule.mustMatch.map((example) => (
                      <div key={`m${example}`}>
                        <span className="muted">matches</span> <code>{example}</code>
                      </div>
                    ))}
                    {rule.mustNotMatch.map((example) => (
                      <div key={`n${example}`}>
                        <span className="muted">not</span> <code>{example}</code>
                      </div>
                    ))}
                  </td>
                  <td className="muted">{rule.createdBy}</td>
                  {canEdit ? (
                    <td>
                      <button className="btn small ghost danger" onClick={() => void remove(rule)} data-testid="delete-policy-rule">
                        Delete
                      </button>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
      {canEdit ? (
        <form className="form settings-form" onSubmit={save} data-testid="policy-rule-form">
          <div className="row wrap">
            <label className="field">
              <span>Effect</span>
              <select value={effect} onChange={(event) => setEffect(event.target.value as PolicyEffect)} data-testid="rule-effect">
                {EFFECTS.map((option) => (
                  <option key={option}>{option}</option>
                ))}
              </select>
            </label>
            <label className="field">
              <span>Tool</span>
              <input value={tool} onChange={(event) => setTool(event.target.value)} list="policy-tools" required maxLength={128} data-testid="rule-tool" />
              <datalist id="policy-tools">
                {["*", ...BUILTIN_TOOLS].map((name) => (
                  <option key={name} value={name} />
                ))}
              </datalist>
            </label>
            <label className="field">
              <span>Applies to</span>
              <select value={appliesTo} onChange={(event) => setAppliesTo(event.target.value as PolicyTarget)} data-testid="rule-target">
                {POLICY_TARGETS.map((option) => (
                  <option key={option} value={option}>
                    {TARGET_HELP[option]}
                  </option>
                ))}
              </select>
            </label>
            <label className="field grow">
              <span>{shell ? "Command prefix (the command and its first words)" : "Command prefix (bash and run_script only)"}</span>
              <input
                value={matchAll && shell ? "" : commandPrefix}
                onChange={(event) => setCommandPrefix(event.target.value)}
                placeholder={matchAll && shell ? "every command" : "npm run deploy"}
                className="mono"
                disabled={matchAll && shell}
                data-testid="rule-prefix"
              />
            </label>
            {shell ? (
              <label className="field check">
                <input type="checkbox" checked={matchAll} onChange={(event) => setMatchAll(event.target.checked)} data-testid="rule-match-all" />
                <span>every command</span>
              </label>
            ) : (
              <label className="field grow">
                <span>Script sha256 (to allow a function tool: the bytes you trust)</span>
                <input value={scriptSha256} onChange={(event) => setScriptSha256(event.target.value)} placeholder="sha256sum tools/count_lines.py" className="mono" data-testid="rule-script-sha256" />
              </label>
            )}
          </div>
          <div className="row wrap">
            <label className="field grow">
              <span>Commands it must match, one per line</span>
              <textarea value={mustMatch} onChange={(event) => setMustMatch(event.target.value)} rows={2} className="mono" placeholder="npm run deploy -- --prod" data-testid="rule-must-match" />
            </label>
            <label className="field grow">
              <span>Commands it must not match, one per line</span>
              <textarea value={mustNotMatch} onChange={(event) => setMustNotMatch(event.target.value)} rows={2} className="mono" placeholder="npm run deployx" data-testid="rule-must-not-match" />
            </label>
          </div>
          <div className="row">
            <button className="btn primary" type="submit" disabled={saving.busy} data-testid="save-policy-rule">
              {saving.busy ? "Checking…" : "Add rule"}
            </button>
            {saving.error ? (
              <span className="notice bad" data-testid="policy-rule-error">
                {saving.error}
              </span>
            ) : null}
          </div>
        </form>
      ) : null}
    </section>
  );
}

function describe(rule: PolicyRule): string {
  return `${rule.effect} ${rule.tool}${rule.commandPrefix ? ` ${rule.commandPrefix}` : ""} for ${rule.appliesTo ?? "everyone"}`;
}
