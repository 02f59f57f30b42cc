import type { SkillActivation, SkillView } from "@berth/protocol";
import { z } from "zod";
import type { Database } from "../create-database";
import type { SkillModel } from "../generated/sqlite/models";
import { parseJsonColumn } from "./json-column";

/** allowedTools: a JSON array of tool names. */
export const SkillAllowedToolsColumnSchema = z.array(z.string());

type SkillRow = SkillModel;

function toView(row: SkillRow): SkillView {
  return {
    name: row.name,
    description: row.description,
    body: row.body,
    allowedTools: parseJsonColumn(SkillAllowedToolsColumnSchema, row.allowedTools, "skill.allowedTools"),
    contentHash: row.contentHash,
    version: row.version,
    ownerId: row.ownerId,
    activation: row.activation === "manual" ? "manual" : "model",
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

type SkillContent = { description: string; body: string; allowedTools: string[]; contentHash: string; activation?: SkillActivation };

/** Skills by their unique name. */
export class SkillRepository {
  constructor(private readonly db: Database) {}

  /** By name. */
  async list(): Promise<SkillView[]> {
    return (await this.db.skill.findMany({ orderBy: { name: "asc" } })).map(toView);
  }

  async get(name: string): Promise<SkillView | null> {
    const row = await this.db.skill.findUnique({ where: { name } });
    return row ? toView(row) : null;
  }

  async create(skill: SkillContent & { id: string; name: string; ownerId: string }): Promise<SkillView> {
    const { allowedTools, ...fields } = skill;
    return toView(await this.db.skill.create({ data: { ...fields, allowedTools: JSON.stringify(allowedTools) } }));
  }

  /** New content as the next version. */
  async update(name: string, content: SkillContent & { version: number }): Promise<SkillView> {
    const { allowedTools, ...fields } = content;
    return toView(await this.db.skill.update({ where: { name }, data: { ...fields, allowedTools: JSON.stringify(allowedTools) } }));
  }

  async delete(name: string): Promise<void> {
    await this.db.skill.delete({ where: { name } });
  }
}
