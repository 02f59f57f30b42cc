import {
  AgentMethod,
  BASH_DEFAULT_TIMEOUT_MS,
  BASH_MAX_RUNNING,
  BASH_MAX_TIMEOUT_MS,
  BASH_STREAM_CAP_BYTES,
  RUN_SCRIPT_DEFAULT_TIMEOUT_MS,
  RUN_SCRIPT_MAX_TIMEOUT_MS,
  WorkspaceSummarySchema,
  type PolicyRule,
} from "@berth/protocol";
import type { SandboxDriver } from "@berth/sandbox";
import type { ContextHost, FunctionToolsReport, ObservationTurn } from "@berth/tools";
import type { SkillsService } from "../skills/skills-service";
import type { ObservationOverflow } from "./observation-overflow";
import type { ToolGate } from "./tool-gate";

/** The session limits `context settings` shows besides the observation budget (each name carries its unit). */
export interface SessionLimits {
  mcpApprovalWaitMs: number;
  mcpCallTimeoutMs: number;
}

/** `context` for one call: the calling session and principal, its gate and its turn's observation pool. */
export function createSessionContextHost(deps: {
  session: { id: string; autonomy: string; network: string };
  userId: string;
  /** An agent may activate only `model` skills; a person or operator also `manual` ones. */
  mayActivateManual: boolean;
  workspaceRoot: string;
  driver: SandboxDriver;
  skills: SkillsService;
  overflow: ObservationOverflow;
  turn: ObservationTurn;
  gate: ToolGate;
  limits: SessionLimits;
  policyRules: () => Promise<PolicyRule[]>;
  /** The session's berth.tools.json as scanned now (`context workspace` names a malformed one's problems). */
  functionTools?: () => Promise<FunctionToolsReport | undefined>;
}): ContextHost {
  const sessionId = deps.session.id;
  return {
    workspaceRoot: deps.workspaceRoot,
    workspaceSummary: () => deps.driver.request(sessionId, AgentMethod.WorkspaceSummary, {}, WorkspaceSummarySchema),
    ...(deps.functionTools ? { functionTools: deps.functionTools } : {}),
    async settings() {
      const { poolBytes, caps } = deps.turn.limits;
      const rules = await deps.policyRules();
      return {
        sessionId,
        autonomy: deps.session.autonomy,
        network: deps.session.network,
        allowedTools: deps.gate.allowedNames(),
        limits: {
          bashDefaultTimeoutMs: BASH_DEFAULT_TIMEOUT_MS,
          bashMaxTimeoutMs: BASH_MAX_TIMEOUT_MS,
          bashStreamCapBytes: BASH_STREAM_CAP_BYTES,
          bashMaxRunningProcesses: BASH_MAX_RUNNING,
          runScriptDefaultTimeoutMs: RUN_SCRIPT_DEFAULT_TIMEOUT_MS,
          runScriptMaxTimeoutMs: RUN_SCRIPT_MAX_TIMEOUT_MS,
          mcpApprovalWaitMs: deps.limits.mcpApprovalWaitMs,
          mcpCallTimeoutMs: deps.limits.mcpCallTimeoutMs,
          observationPoolBytes: poolBytes,
          ...Object.fromEntries(Object.entries(caps).map(([tool, bytes]) => [`observationCapBytes.${tool}`, bytes])),
        },
        // Policy rules are the runner's, not a session's: every one applies here (admission checks each call).
        policyRules: rules.map((rule) => ({
          id: rule.id,
          tool: rule.tool,
          effect: rule.effect,
          ...(rule.commandPrefix ? { commandPrefix: rule.commandPrefix } : {}),
          appliesTo: rule.appliesTo ?? "everyone",
          mustMatch: rule.mustMatch,
          mustNotMatch: rule.mustNotMatch,
        })),
      };
    },
    skills: () => deps.skills.list(sessionId),
    loadSkill: (name) => deps.skills.load(sessionId, name),
    setSkillActive: (name, active) =>
      deps.skills.setActive(sessionId, name, active, {
        userId: deps.userId,
        mayActivateManual: deps.mayActivateManual,
      }),
    recall: (ref, offset, maxBytes) => deps.overflow.read(sessionId, ref, offset, maxBytes),
    budget: () => deps.turn.view(),
  };
}
