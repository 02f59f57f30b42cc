import { describe, expect, it } from "vitest";
import type { ActionClass, Autonomy, PolicyRule } from "@berth/protocol";
import { admit } from "./admit";
import type { AdmissionContext, AdmissionRegistry } from "./admit";
import { LoopGuard } from "./loop-guard";
import { renderCallText } from "./render-call-text";

const CLASSES: Record<string, ActionClass> = {
  bash: "execute",
  run_script: "execute",
  read_file: "read",
  grep: "read",
  write_file: "write",
  dispatch: "dispatch",
  gateway: "read",
  web_fetch: "network",
};

const registry: AdmissionRegistry = {
  has: (tool) => tool in CLASSES,
  validate: (tool, args) => {
    if (typeof args !== "object" || args === null)
      return { ok: false, message: `${tool}: arguments must be an object` };
    if (tool === "read_file" && typeof (args as { path?: unknown }).path !== "string") {
      return { ok: false, message: "read_file: path must be a string (got undefined)" };
    }
    return { ok: true, args };
  },
  actionClassOf: (tool) => CLASSES[tool] ?? "unknown",
};

const ctx = (autonomy: Autonomy, extra: Partial<AdmissionContext> = {}): AdmissionContext => ({
  registry,
  autonomy,
  workspaceRoot: "/workspace",
  ...extra,
});
const bash = (command: string, autonomy: Autonomy = "default", extra: Partial<AdmissionContext> = {}) =>
  admit({ sessionId: "s1", tool: "bash", args: { command }, caller: "api" }, ctx(autonomy, extra));

const LEVELS: Autonomy[] = ["read-only", "default", "trusted", "yolo"];

describe("admit: spec examples", () => {
  it("git push --force is denied at every autonomy level", () => {
    for (const autonomy of LEVELS) {
      const result = bash("git push --force", autonomy);
      expect(result.verdict, autonomy).toBe("deny");
      expect(result.actionClass).toBe("git_destructive");
    }
  });

  it("sudo is parked at default", () => {
    const result = bash("sudo apt-get update");
    expect(result.verdict).toBe("ask");
    expect(result.actionClass).toBe("system_modify");
    expect(result.reason).toMatch(/autonomy default/);
  });

  it("$(…) is classified like any command: `echo $(whoami)` runs at default and yolo", () => {
    for (const autonomy of ["default", "trusted", "yolo"] as const) {
      expect(bash("echo $(whoami)", autonomy).verdict, autonomy).toBe("allow");
      expect(bash("echo $(sudo id)", autonomy).verdict, autonomy).toBe(autonomy === "yolo" ? "allow" : "ask");
      expect(bash("echo $(git reset --hard)", autonomy).verdict, autonomy).toBe("deny");
    }
    expect(bash("echo $(date)", "read-only").verdict).toBe("deny");
  });

  it("a command name that comes from an expansion asks, in yolo too", () => {
    for (const command of ["$(echo git) reset --hard", "$CMD arg", 'eval "$X"', 'bash -c "$X"']) {
      for (const autonomy of ["default", "trusted", "yolo"] as const) {
        const result = bash(command, autonomy);
        expect(result.verdict, `${command} at ${autonomy}`).toBe("ask");
        expect(result.reason).toMatch(/every autonomy level/);
      }
    }
  });

  it("&&-chained recognised commands are allowed", () => {
    const result = bash("npm test && npm run build && git status");
    expect(result.verdict).toBe("allow");
    expect(result.actionClass).toBe("execute");
    expect(result.recognised).toBe(true);
  });

  it("chaining tricks are parked, not allowed, at default", () => {
    for (const command of [
      "ls && rm -rf /",
      'bash -c "sudo x"',
      "ls; sudo rm",
      "echo x | sh",
      "ls > /etc/passwd",
      "echo $(sudo x)",
      "env sudo x",
      "nohup sudo x",
    ]) {
      expect(bash(command).verdict, command).toBe("ask");
    }
  });

  it("trusted allows other programs and network, still asks for system_modify", () => {
    expect(bash("rm -rf build", "trusted").verdict).toBe("allow");
    expect(bash("curl https://example.com", "trusted").verdict).toBe("allow");
    expect(bash("sudo x", "trusted").verdict).toBe("ask");
    expect(bash("sudo x", "yolo").verdict).toBe("allow");
  });
});

describe("admit: order of steps", () => {
  it("an unknown tool is refused first", () => {
    const result = admit({ sessionId: "s1", tool: "nope", args: {}, caller: "agent" }, ctx("yolo"));
    expect(result).toMatchObject({ verdict: "deny", stage: "tool", reason: "Unknown tool: nope" });
  });

  it("invalid arguments are refused with the validator's message", () => {
    const result = admit({ sessionId: "s1", tool: "read_file", args: {}, caller: "agent" }, ctx("yolo"));
    expect(result).toMatchObject({ verdict: "deny", stage: "arguments" });
    expect(result.reason).toMatch(/path must be a string/);
  });

  it("non-shell tools take their class from the registry", () => {
    expect(
      admit({ sessionId: "s1", tool: "read_file", args: { path: "a" }, caller: "api" }, ctx("read-only")).verdict,
    ).toBe("allow");
    expect(
      admit({ sessionId: "s1", tool: "write_file", args: { path: "a" }, caller: "api" }, ctx("read-only")).verdict,
    ).toBe("deny");
    expect(
      admit({ sessionId: "s1", tool: "write_file", args: { path: "a" }, caller: "api" }, ctx("default")).verdict,
    ).toBe("allow");
    expect(admit({ sessionId: "s1", tool: "web_fetch", args: {}, caller: "api" }, ctx("default")).verdict).toBe("ask");
  });

  it("the session allowlist refuses tools not on it", () => {
    const result = bash("ls", "yolo", { session: { tools: ["read_file"] } });
    expect(result).toMatchObject({ verdict: "deny", stage: "allowlist" });
  });

  it("session grants allow what autonomy would ask, never what it denies", () => {
    const session = { grants: [{ tool: "bash", commandPrefix: "npm run dev" }] };
    expect(bash("npm run dev", "default", { session }).verdict).toBe("allow");
    expect(bash("npm run dev && curl x", "default", { session }).verdict).toBe("ask");
    expect(bash("npm run dev", "read-only", { session }).verdict).toBe("deny");
  });

  it("policy deny beats autonomy allow; policy ask parks; policy allow lifts ask", () => {
    const rules: PolicyRule[] = [
      { id: "no-rm", tool: "bash", commandPrefix: "rm", effect: "deny", mustMatch: [], mustNotMatch: [] },
      { id: "ask-make", tool: "bash", commandPrefix: "make", effect: "ask", mustMatch: [], mustNotMatch: [] },
      {
        id: "allow-deploy",
        tool: "bash",
        commandPrefix: "npm run deploy",
        effect: "allow",
        mustMatch: [],
        mustNotMatch: [],
      },
    ];
    expect(bash("rm -rf build", "yolo", { policyRules: rules })).toMatchObject({
      verdict: "deny",
      stage: "policy",
      ruleId: "no-rm",
    });
    expect(bash("make", "default", { policyRules: rules })).toMatchObject({
      verdict: "ask",
      stage: "policy",
      ruleId: "ask-make",
    });
    expect(bash("npm run deploy", "default", { policyRules: rules })).toMatchObject({
      verdict: "allow",
      stage: "policy",
    });
  });

  it("a policy allow never lifts a git_destructive deny or an always-ask", () => {
    const rules: PolicyRule[] = [
      { id: "allow-git", tool: "bash", commandPrefix: "git", effect: "allow", mustMatch: [], mustNotMatch: [] },
    ];
    expect(bash("git push --force", "yolo", { policyRules: rules }).verdict).toBe("deny");
    expect(bash("git $(echo reset) --hard", "yolo", { policyRules: rules }).verdict).toBe("ask");
  });

  it("returns the rendered text and its sha256", () => {
    const result = bash("ls");
    expect(result).toMatchObject(renderCallText("bash", { command: "ls" }));
  });

  it("gives an admitted call's text (rendered when first read) to a copy of the result and to its JSON", () => {
    const args = { command: "echo hi" };
    const result = admit({ sessionId: "s1", tool: "bash", args, caller: "api" }, ctx("yolo"));
    const expected = renderCallText("bash", args);
    expect({ ...result }).toMatchObject(expected);
    expect(JSON.parse(JSON.stringify(result))).toMatchObject(expected);
    expect(result.sha256).toBe(expected.sha256);
  });

  it("classifies bash with its cwd, and bash process actions", () => {
    expect(
      admit(
        { sessionId: "s1", tool: "bash", args: { command: "touch x", cwd: "/tmp" }, caller: "api" },
        ctx("default"),
      ).actionClass,
    ).toBe("system_modify");
    expect(
      admit({ sessionId: "s1", tool: "bash", args: { action: "list" }, caller: "api" }, ctx("read-only")).verdict,
    ).toBe("allow");
    expect(
      admit(
        { sessionId: "s1", tool: "bash", args: { action: "write", processId: "p", input: "sudo x\n" }, caller: "api" },
        ctx("default"),
      ).verdict,
    ).toBe("ask");
  });

  it("run_script is execute, not recognised: asks at default, allowed when trusted", () => {
    const call = {
      sessionId: "s1",
      tool: "run_script",
      args: { interpreter: "python3", script: "train.py" },
      caller: "api" as const,
    };
    expect(admit(call, ctx("default"))).toMatchObject({ verdict: "ask", actionClass: "execute", recognised: false });
    expect(admit(call, ctx("trusted")).verdict).toBe("allow");
  });
});

describe("admit: loop guard", () => {
  it("blocks the 3rd identical agent call within 30 s", () => {
    let now = 0;
    const loopGuard = new LoopGuard({ clock: { now: () => now } });
    const call = { sessionId: "s1", tool: "bash", args: { command: "ls" }, caller: "agent" as const };
    expect(admit(call, ctx("default", { loopGuard })).verdict).toBe("allow");
    now += 1000;
    expect(admit(call, ctx("default", { loopGuard })).verdict).toBe("allow");
    now += 1000;
    const third = admit(call, ctx("default", { loopGuard }));
    expect(third).toMatchObject({ verdict: "deny", stage: "loop_guard" });
    expect(third.reason).toMatch(/3rd identical bash call/);
  });

  it("does not apply to API callers", () => {
    const loopGuard = new LoopGuard();
    const call = { sessionId: "s1", tool: "bash", args: { command: "ls" }, caller: "api" as const };
    for (let i = 0; i < 5; i++) expect(admit(call, ctx("default", { loopGuard })).verdict).toBe("allow");
  });
});

describe("admit: repeats are judged by what the call observes", () => {
  const read = (loopGuard: LoopGuard, workspaceGeneration: number) =>
    admit(
      { sessionId: "s1", tool: "read_file", args: { path: "src.txt" }, caller: "agent" },
      ctx("default", { loopGuard, workspaceGeneration }),
    );

  it("a read after the workspace generation moved is not a repeat; three at one generation block", () => {
    const loopGuard = new LoopGuard();
    for (let generation = 0; generation < 10; generation++) {
      expect(read(loopGuard, generation).verdict, `generation ${generation}`).toBe("allow");
      expect(read(loopGuard, generation).verdict, `generation ${generation}`).toBe("allow");
    }
    expect(read(loopGuard, 9)).toMatchObject({ verdict: "deny", stage: "loop_guard" });
  });
});

describe("admit: bash write to a running process", () => {
  const write = (autonomy: Autonomy, processClass?: AdmissionContext["processClass"]) =>
    admit(
      { sessionId: "s1", tool: "bash", args: { action: "write", processId: "proc_1", input: "rs\n" }, caller: "agent" },
      ctx(autonomy, processClass ? { processClass } : {}),
    );

  it("inherits the class its start was admitted under", () => {
    const started = { actionClass: "execute" as const, recognised: true, alwaysAsk: false, reasons: [] };
    const result = write("default", (id) => (id === "proc_1" ? started : undefined));
    expect(result).toMatchObject({ verdict: "allow", actionClass: "execute", recognised: true });
    expect(result.reasons.join("\n")).toMatch(/admitted as its start was/);
    const shell = {
      actionClass: "unknown" as const,
      recognised: false,
      alwaysAsk: true,
      reasons: ["bash reads commands from stdin [unknown, always asks]"],
    };
    expect(write("yolo", () => shell).verdict).toBe("ask");
  });

  it("to a process the session did not start: as a command of unknown class", () => {
    expect(write("default")).toMatchObject({ verdict: "ask", actionClass: "unknown" });
    expect(write("trusted").verdict).toBe("allow");
    expect(write("read-only").verdict).toBe("deny");
  });
});

describe("admit: dispatch plans", () => {
  const plan = (tasks: Array<{ tool: string; args: unknown }>, topology = "parallel") => ({
    sessionId: "s1",
    tool: "dispatch",
    args: { tasks, topology },
    caller: "agent" as const,
  });

  it("a plan of several tasks is plan-scale: asks at default and trusted, allowed in yolo", () => {
    const call = plan([
      { tool: "bash", args: { command: "npm test" } },
      { tool: "bash", args: { command: "npm run lint" } },
    ]);
    expect(admit(call, ctx("default"))).toMatchObject({ verdict: "ask", actionClass: "dispatch" });
    expect(admit(call, ctx("trusted")).verdict).toBe("ask");
    expect(admit(call, ctx("yolo")).verdict).toBe("allow");
    expect(admit(call, ctx("read-only")).verdict).toBe("deny");
  });

  it("the approval text is the plan text", () => {
    const result = admit(
      plan(
        [
          { tool: "bash", args: { command: "npm test" } },
          { tool: "read_file", args: { path: "a" } },
        ],
        "sequential",
      ),
      ctx("default"),
    );
    expect(result.text.split("\n")[0]).toBe("dispatch plan: topology=sequential tasks=2");
    expect(result.tasks).toHaveLength(2);
  });

  it("a single allowed task is not plan-scale", () => {
    expect(admit(plan([{ tool: "bash", args: { command: "ls" } }]), ctx("default")).verdict).toBe("allow");
  });

  it("a single task that asks makes the plan plan-scale", () => {
    expect(admit(plan([{ tool: "bash", args: { command: "sudo x" } }]), ctx("default"))).toMatchObject({
      verdict: "ask",
      actionClass: "dispatch",
    });
  });

  it("a denied task denies the plan; an always-ask task asks even in yolo", () => {
    const denied = admit(
      plan([
        { tool: "bash", args: { command: "ls" } },
        { tool: "bash", args: { command: "git push -f" } },
      ]),
      ctx("yolo"),
    );
    expect(denied.verdict).toBe("deny");
    expect(denied.reason).toMatch(/task 2 \(bash\)/);
    const asks = admit(
      plan([
        { tool: "bash", args: { command: "ls" } },
        { tool: "bash", args: { command: 'eval "$X"' } },
      ]),
      ctx("yolo"),
    );
    expect(asks.verdict).toBe("ask");
  });

  it("a compete plan admits its checks as tasks and renders them after the candidates; an op on one is a plain write", () => {
    const result = admit(
      {
        sessionId: "s1",
        tool: "dispatch",
        args: { topology: "compete", tasks: [{ tool: "write_file", args: { path: "a" } }, { tool: "write_file", args: { path: "b" } }], checks: [{ tool: "bash", args: { command: "npm test" } }] },
        caller: "agent",
      },
      ctx("default"),
    );
    expect(result).toMatchObject({ verdict: "ask", actionClass: "dispatch" });
    expect(result.tasks?.map((t) => t.tool)).toEqual(["write_file", "write_file", "bash"]);
    const lines = result.text.split("\n");
    expect(lines[0]).toBe("dispatch plan: topology=compete tasks=2 checks=1 apply=winner");
    expect(lines[3]).toMatch(/^check 1\. bash args_sha256=[0-9a-f]{64} \{"command":"npm test"\}$/);
    const op = admit({ sessionId: "s1", tool: "dispatch", args: { op: "clear", runId: "run_1" }, caller: "agent" }, ctx("default"));
    expect(op).toMatchObject({ verdict: "allow", actionClass: "write" });
    expect(op.tasks).toBeUndefined();
    expect(op.text).toBe('dispatch {"op":"clear","runId":"run_1"}');
  });

  it("unknown tools and malformed plans are refused", () => {
    expect(admit(plan([{ tool: "nope", args: {} }]), ctx("yolo")).reason).toMatch(/Unknown tool: nope/);
    expect(admit({ sessionId: "s1", tool: "dispatch", args: { tasks: [] }, caller: "agent" }, ctx("yolo")).stage).toBe(
      "arguments",
    );
  });
});

describe("admit: gateway", () => {
  it("find/describe/call are admitted by the registry's class; the capability is admitted again by GatewayHost.call", () => {
    const result = admit(
      {
        sessionId: "s1",
        tool: "gateway",
        args: { op: "call", capability: "bash", args: { command: "sudo x" } },
        caller: "agent",
      },
      ctx("read-only"),
    );
    expect(result).toMatchObject({ verdict: "allow", tool: "gateway", actionClass: "read" });
  });
});

describe("admit: a person in their own session acts as themselves", () => {
  const as = (caller: "browser" | "api" | "agent", ownSession: boolean, tool: string, args: unknown, autonomy: Autonomy, extra: Partial<AdmissionContext> = {}) =>
    admit({ sessionId: "s1", tool, args, caller, ownSession }, ctx(autonomy, extra));
  const script = { interpreter: "python3", script: "train.py" };

  it("runs at once at every level but read-only, where writes and executes stay denied", () => {
    for (const autonomy of ["default", "trusted", "yolo"] as const) {
      expect(as("browser", true, "run_script", script, autonomy).verdict, autonomy).toBe("allow");
      expect(as("browser", true, "bash", { command: "sudo apt-get update" }, autonomy).verdict, autonomy).toBe("allow");
      expect(as("browser", true, "bash", { command: "echo $(date)" }, autonomy).verdict, autonomy).toBe("allow");
      expect(as("browser", true, "bash", { command: "git push --force" }, autonomy).verdict, autonomy).toBe("allow");
    }
    const atDefault = as("browser", true, "run_script", script, "default");
    expect(atDefault).toMatchObject({ stage: "autonomy" });
    expect(atDefault.reason).toMatch(/session's owner, who acts as themselves at autonomy default/);
    expect(as("browser", true, "run_script", script, "read-only").verdict).toBe("deny");
    expect(as("browser", true, "write_file", { path: "a" }, "read-only").verdict).toBe("deny");
    expect(as("browser", true, "read_file", { path: "a" }, "read-only").verdict).toBe("allow");
  });

  it("agents, scripts and people in someone else's session are governed as before", () => {
    expect(as("agent", true, "run_script", script, "default").verdict).toBe("ask");
    expect(as("api", true, "run_script", script, "default").verdict).toBe("ask");
    expect(as("browser", false, "run_script", script, "default").verdict).toBe("ask");
    expect(as("api", true, "bash", { command: "git push --force" }, "yolo").verdict).toBe("deny");
  });

  it("policy rules still apply to them, by target", () => {
    const base = { tool: "bash", commandPrefix: "git push", mustMatch: [], mustNotMatch: [] };
    const people: PolicyRule = { ...base, id: "no-push-people", effect: "deny", appliesTo: "people" };
    const agents: PolicyRule = { ...base, id: "no-push-agents", effect: "deny", appliesTo: "agents" };
    const ask: PolicyRule = { ...base, id: "ask-push", effect: "ask", appliesTo: "everyone" };
    const push = { command: "git push origin main" };
    expect(as("browser", true, "bash", push, "yolo", { policyRules: [people] })).toMatchObject({ verdict: "deny", stage: "policy", ruleId: "no-push-people" });
    expect(as("browser", true, "bash", push, "default", { policyRules: [agents] }).verdict).toBe("allow");
    expect(as("agent", true, "bash", push, "yolo", { policyRules: [agents] }).verdict).toBe("deny");
    expect(as("browser", true, "bash", push, "default", { policyRules: [ask] })).toMatchObject({ verdict: "ask", stage: "policy" });
  });
});

describe("admit: a function tool's script in a dispatch plan", () => {
  const A = "a".repeat(64);
  const B = "b".repeat(64);
  // A function tool as the registry classifies it: it runs a workspace script (ScopedTools marks bindsScript).
  const withFunctionTool: AdmissionRegistry = {
    ...registry,
    has: (tool) => tool === "count_lines" || registry.has(tool),
    actionClassOf: (tool, args) => (tool === "count_lines" ? { actionClass: "execute", bindsScript: true } : registry.actionClassOf(tool, args)),
  };
  const trusted: PolicyRule = { id: "trusts-a", tool: "count_lines", effect: "allow", scriptSha256: A, mustMatch: [], mustNotMatch: [] };
  const plan = { tasks: [{ tool: "count_lines", args: { path: "notes.txt" } }], topology: "parallel" };
  const admitPlan = (extra: { scriptSha256?: string; taskScripts?: Record<string, { sha256: string }> }) =>
    admit({ sessionId: "s1", tool: "dispatch", args: plan, caller: "agent", ...extra }, ctx("default", { registry: withFunctionTool, policyRules: [trusted] }));

  it("allows a task whose script has the bytes the operator's rule names", () => {
    expect(admitPlan({ taskScripts: { count_lines: { sha256: A } } })).toMatchObject({ verdict: "allow", tool: "dispatch" });
  });

  it("asks for a task whose script has other bytes, or whose script was not hashed; the plan's own hash is not its tasks'", () => {
    expect(admitPlan({ taskScripts: { count_lines: { sha256: B } } }).verdict).toBe("ask");
    expect(admitPlan({}).verdict).toBe("ask");
    expect(admitPlan({ scriptSha256: A }).verdict).toBe("ask");
  });
});
