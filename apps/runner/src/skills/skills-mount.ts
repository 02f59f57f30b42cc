import type { SkillRepository } from "@berth/db";
import { AgentMethod, SkillsSyncResultSchema, type SkillsSyncParams } from "@berth/protocol";
import type { SandboxDriver } from "@berth/sandbox";
import { isDrifted } from "./skills-service";

/**
 * The skill catalog, mounted read-only at SKILLS_ROOT in every session's container (docs/tools.md, skills). A pooled
 * container knows no session when it is made, so nothing is mounted at create time: the driver mounts an empty
 * root-owned tmpfs there, and the agent writes the catalog into it as root each time a sandbox becomes ready and
 * whenever a skill changes. A drifted skill is left out: its stored body is not what was installed.
 */
/** A sandbox that does not take the catalog in this long is logged and skipped: a skill change never waits longer. */
const SYNC_TIMEOUT_MS = 15_000;

export class SkillsMount {
  private catalog: SkillsSyncParams["skills"] = [];
  private refreshing: Promise<void> = Promise.resolve();
  private readonly deps: {
    skills: SkillRepository;
    driver: SandboxDriver;
    log: (message: string) => void;
  };

  constructor(deps: SkillsMount["deps"]) {
    this.deps = deps;
  }

  /** Before reconcile, so adopted sandboxes get the catalog too. */
  async start(): Promise<void> {
    await this.load();
    // Sent while the sandbox is bound, before its first call: the agent orders it ahead of what follows. The
    // catalog is then read again: another runner, or an edit behind the API, may have changed it since.
    this.deps.driver.on("ready", (info) => void this.push(info.sessionId).then(() => this.refreshIfStale()));
  }

  /** A skill was installed, changed, removed or accepted: every running sandbox gets the catalog again. */
  refresh(): Promise<void> {
    const next = this.refreshing.then(async () => {
      await this.load();
      const ready = this.deps.driver.list().filter((info) => info.status === "ready");
      await Promise.all(ready.map((info) => this.push(info.sessionId)));
    });
    this.refreshing = next.catch(() => undefined);
    return next;
  }

  private async refreshIfStale(): Promise<void> {
    try {
      const current = JSON.stringify(await this.read());
      if (current !== JSON.stringify(this.catalog)) await this.refresh();
    } catch (error) {
      this.deps.log(`skill catalog not read again: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async load(): Promise<void> {
    this.catalog = await this.read();
  }

  private async read(): Promise<SkillsSyncParams["skills"]> {
    const skills = await this.deps.skills.list();
    return skills.filter((skill) => !isDrifted(skill)).map(({ name, body }) => ({ name, body }));
  }

  private async push(sessionId: string): Promise<void> {
    try {
      await this.deps.driver.request(
        sessionId,
        AgentMethod.SkillsSync,
        { skills: this.catalog },
        SkillsSyncResultSchema,
        { timeoutMs: SYNC_TIMEOUT_MS },
      );
    } catch (error) {
      this.deps.log(
        `skills not mounted in session ${sessionId}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
