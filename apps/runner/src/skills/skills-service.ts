import type { SessionSkillRecord, SessionSkillRepository, SkillRepository } from "@berth/db";
import { InvalidatingCache } from "../auth/invalidating-cache";
import type { InvalidationBus } from "../auth/invalidation-bus";
import type { ContextSkill, SkillView } from "@berth/protocol";
import type { Refused } from "@berth/tools";
import { legacySkillContentHash, skillContentHash } from "./skill-content-hash";

/** Reachable whatever an active skill allows: the way to the environment (context) and to what it allows (gateway). */
export const ALWAYS_ALLOWED_UNDER_SKILLS: readonly string[] = ["gateway", "context"];

/** Who asks to change a session's skills: an agent may activate only `model` skills. */
export interface SkillActor {
  userId: string;
  /** A person at the keyboard (the owner's browser) or an operator/admin: may activate `manual` skills too. */
  mayActivateManual: boolean;
}

/** What the session's active skills let it call; null when no active skill narrows it. */
export interface SkillNarrowing {
  skills: string[];
  tools: ReadonlySet<string>;
}

export function isDrifted(skill: SkillView): boolean {
  return skillContentHash(skill) !== skill.contentHash;
}

/**
 * Skills that govern (docs/tools.md, context): which are active in a session, whether a stored skill has
 * drifted from the hash recorded at install, and the tools the active ones narrow the session to.
 */
export class SkillsService {
  private readonly skills: Pick<SkillRepository, "list" | "get" | "update">;
  private readonly active: Pick<SessionSkillRepository, "list" | "activate" | "deactivate">;
  /** Each session's active skills: every tool call asks (narrowing), and they change only through setActive. */
  private readonly activeCache = new InvalidatingCache<SessionSkillRecord[]>({ ttlMs: 30_000, maxEntries: 10_000 });
  private readonly invalidation: InvalidationBus | undefined;

  constructor(repos: {
    skills: Pick<SkillRepository, "list" | "get" | "update">;
    sessionSkills: Pick<SessionSkillRepository, "list" | "activate" | "deactivate">;
    /** Where a change of a session's skills is published (other runners' caches); this one's is emptied at once. */
    invalidation?: InvalidationBus;
  }) {
    this.skills = repos.skills;
    this.active = repos.sessionSkills;
    this.invalidation = repos.invalidation;
    this.invalidation?.subscribe((event) => {
      if (event.kind === "session") this.activeCache.delete(event.id);
    });
  }

  async list(sessionId: string): Promise<ContextSkill[]> {
    const [skills, active] = await Promise.all([this.skills.list(), this.activeNames(sessionId)]);
    return skills.map((skill) => contextSkill(skill, active.has(skill.name)));
  }

  async load(sessionId: string, name: string): Promise<{ skill: ContextSkill; body: string } | Refused> {
    const skill = await this.skills.get(name);
    if (!skill) return { refused: `skill not found: ${name}`, code: "not_found" };
    if (isDrifted(skill)) return drifted(name);
    const active = await this.activeNames(sessionId);
    return { skill: contextSkill(skill, active.has(name)), body: skill.body };
  }

  async setActive(sessionId: string, name: string, on: boolean, actor: SkillActor): Promise<ContextSkill | Refused> {
    const skill = await this.skills.get(name);
    if (!skill) return { refused: `skill not found: ${name}`, code: "not_found" };
    if (skill.activation === "manual" && !actor.mayActivateManual) {
      return {
        refused: `skill ${name} has activation manual: only a person in the IDE or an operator may ${on ? "activate" : "deactivate"} it`,
        code: "denied",
      };
    }
    if (!on) {
      await this.active.deactivate(sessionId, name);
      this.changed(sessionId);
      return contextSkill(skill, false);
    }
    if (isDrifted(skill)) return drifted(name);
    await this.active.activate({
      sessionId,
      skillName: name,
      contentHash: skill.contentHash,
      activatedBy: actor.userId,
    });
    this.changed(sessionId);
    return contextSkill(skill, true);
  }

  /**
   * The union of the active skills' allowedTools (a skill that names none narrows nothing), plus
   * ALWAYS_ALLOWED_UNDER_SKILLS. An active skill that has drifted since allows only those: its stored list
   * is not what was installed, so it must not widen anything (fail closed).
   */
  async narrowing(sessionId: string): Promise<SkillNarrowing | null> {
    const records = await this.records(sessionId);
    if (records.length === 0) return null;
    const skills = (await Promise.all(records.map((record) => this.skills.get(record.skillName)))).filter(
      (skill): skill is SkillView => skill !== null,
    );
    const narrowing = skills.filter((skill) => skill.allowedTools.length > 0 || isDrifted(skill));
    if (narrowing.length === 0) return null;
    const tools = new Set(ALWAYS_ALLOWED_UNDER_SKILLS);
    for (const skill of narrowing) if (!isDrifted(skill)) for (const tool of skill.allowedTools) tools.add(tool);
    return { skills: narrowing.map((skill) => skill.name), tools };
  }

  /** An operator accepts a drifted skill's stored content as it now is: its hash is recorded again. */
  async accept(name: string): Promise<SkillView | null> {
    const skill = await this.skills.get(name);
    if (!skill) return null;
    if (!isDrifted(skill)) return skill;
    return this.skills.update(name, {
      description: skill.description,
      body: skill.body,
      allowedTools: skill.allowedTools,
      contentHash: skillContentHash(skill),
      version: skill.version + 1,
    });
  }

  /**
   * Once at start: a skill whose recorded hash is the one runners kept before the hash covered `activation`, and
   * whose content still matches it, gets the current hash (its version unchanged). Its activation was never
   * covered until now, so it is taken as stored, once; a skill that had drifted stays drifted. Returns the names.
   */
  async upgradeLegacyHashes(): Promise<string[]> {
    const upgraded: string[] = [];
    for (const skill of await this.skills.list()) {
      if (skill.contentHash !== legacySkillContentHash(skill) || !isDrifted(skill)) continue;
      await this.skills.update(skill.name, {
        description: skill.description,
        body: skill.body,
        allowedTools: skill.allowedTools,
        contentHash: skillContentHash(skill),
        version: skill.version,
      });
      upgraded.push(skill.name);
    }
    return upgraded;
  }

  /**
   * `narrowing` without waiting, for the common case: a session whose active skills are cached and that has none is
   * not narrowed. Undefined when only `narrowing` can tell.
   */
  narrowingNow(sessionId: string): null | undefined {
    return this.activeCache.get(sessionId)?.length === 0 ? null : undefined;
  }

  private async records(sessionId: string): Promise<SessionSkillRecord[]> {
    const cached = this.activeCache.get(sessionId);
    if (cached) return cached;
    const epoch = this.activeCache.epoch;
    const records = await this.active.list(sessionId);
    this.activeCache.set(sessionId, records, epoch);
    return records;
  }

  private changed(sessionId: string): void {
    this.activeCache.delete(sessionId);
    this.invalidation?.publish({ kind: "session", id: sessionId });
  }

  private async activeNames(sessionId: string): Promise<Set<string>> {
    return new Set((await this.records(sessionId)).map((record) => record.skillName));
  }
}

function contextSkill(skill: SkillView, active: boolean): ContextSkill {
  return {
    name: skill.name,
    description: skill.description,
    activation: skill.activation,
    allowedTools: skill.allowedTools,
    active,
    drifted: isDrifted(skill),
  };
}

function drifted(name: string): Refused {
  return {
    refused: `skill ${name} has drifted: its stored content no longer matches the hash recorded at install, so it cannot be loaded or activated until an operator accepts it (POST /api/skills/${name}/accept)`,
    code: "skill_drifted",
  };
}
