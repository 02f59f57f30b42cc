import type { Database } from "../create-database";

/** A skill active in a session, with the hash its content had when it was activated. */
export interface SessionSkillRecord {
  sessionId: string;
  skillName: string;
  contentHash: string;
  activatedBy: string;
  activatedAt: string;
}

type SessionSkillRow = Awaited<ReturnType<Database["sessionSkill"]["findUniqueOrThrow"]>>;

function toRecord(row: SessionSkillRow): SessionSkillRecord {
  return { ...row, activatedAt: row.activatedAt.toISOString() };
}

/** Which skills are active in which session (a skill active in a session narrows what it may call). */
export class SessionSkillRepository {
  constructor(private readonly db: Database) {}

  /** The session's active skills, by name. */
  async list(sessionId: string): Promise<SessionSkillRecord[]> {
    return (await this.db.sessionSkill.findMany({ where: { sessionId }, orderBy: { skillName: "asc" } })).map(toRecord);
  }

  /** Activates (or re-activates at a new hash) one skill in a session. */
  async activate(record: Omit<SessionSkillRecord, "activatedAt">): Promise<SessionSkillRecord> {
    const { sessionId, skillName, ...fields } = record;
    const row = await this.db.sessionSkill.upsert({
      where: { sessionId_skillName: { sessionId, skillName } },
      create: record,
      update: { ...fields, activatedAt: new Date() },
    });
    return toRecord(row);
  }

  /** True when it was active. */
  async deactivate(sessionId: string, skillName: string): Promise<boolean> {
    const { count } = await this.db.sessionSkill.deleteMany({ where: { sessionId, skillName } });
    return count > 0;
  }
}
