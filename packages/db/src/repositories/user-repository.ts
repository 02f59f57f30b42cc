import { RoleSchema, type ApiTokenView, type Role } from "@berth/protocol";
import type { Database } from "../create-database";
import { isoOrNull } from "./json-column";

export interface UserRecord {
  id: string;
  name: string;
  /** A role the protocol does not know (a hand-edited row) reads as viewer, the least one. */
  role: Role;
  createdAt: string;
  /** Set: their tokens are refused and their sockets ended. */
  disabledAt: string | null;
  /** Set: the row stays so their runs and receipts keep their name; never listed or authenticated. */
  deletedAt: string | null;
}

/** A token found by its hash, with what authentication decides on. */
export interface ApiTokenMatch {
  id: string;
  userId: string;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  user: UserRecord;
}

type UserRow = { id: string; name: string; role: string; createdAt: Date; disabledAt: Date | null; deletedAt: Date | null };

function toUser(row: UserRow): UserRecord {
  return { id: row.id, name: row.name, role: RoleSchema.catch("viewer").parse(row.role), createdAt: row.createdAt.toISOString(), disabledAt: isoOrNull(row.disabledAt), deletedAt: isoOrNull(row.deletedAt) };
}

/** Users and their API tokens. */
export class UserRepository {
  constructor(private readonly db: Database) {}

  async get(id: string): Promise<UserRecord | null> {
    const row = await this.db.user.findUnique({ where: { id } });
    return row ? toUser(row) : null;
  }

  /** Users not deleted, oldest first. */
  async listLive(): Promise<UserRecord[]> {
    return (await this.db.user.findMany({ where: { deletedAt: null }, orderBy: { createdAt: "asc" } })).map(toUser);
  }

  /** Names by id (deleted users included: their runs keep their name). */
  async namesOf(ids: string[]): Promise<Map<string, string>> {
    const rows = await this.db.user.findMany({ where: { id: { in: [...new Set(ids)] } }, select: { id: true, name: true } });
    return new Map(rows.map((u) => [u.id, u.name]));
  }

  async create(user: { id: string; name: string; role: Role }): Promise<UserRecord> {
    return toUser(await this.db.user.create({ data: user }));
  }

  /** Creates the user unless it exists (an existing one is left as it is). */
  async ensure(user: { id: string; name: string; role: Role }): Promise<void> {
    await this.db.user.upsert({ where: { id: user.id }, update: {}, create: user });
  }

  /** Disabling keeps the first time it was disabled; enabling clears it. */
  async setDisabled(user: UserRecord, disabled: boolean): Promise<UserRecord> {
    const disabledAt = disabled ? (user.disabledAt ? new Date(user.disabledAt) : new Date()) : null;
    return toUser(await this.db.user.update({ where: { id: user.id }, data: { disabledAt } }));
  }

  /** Marks the user deleted (and disabled, if not already) and revokes every live token of theirs. */
  async softDelete(user: UserRecord): Promise<void> {
    const now = new Date();
    await this.db.user.update({ where: { id: user.id }, data: { deletedAt: now, disabledAt: user.disabledAt ? new Date(user.disabledAt) : now } });
    await this.db.apiToken.updateMany({ where: { userId: user.id, revokedAt: null }, data: { revokedAt: now } });
  }

  async createToken(token: { id: string; userId: string; name: string; tokenHash: string }): Promise<void> {
    await this.db.apiToken.create({ data: token });
  }

  /** A token with a fixed id (the admin's, from the environment or the data dir): its hash replaced, revocation lifted. */
  async upsertToken(token: { id: string; userId: string; name: string; tokenHash: string }): Promise<void> {
    await this.db.apiToken.upsert({ where: { id: token.id }, update: { tokenHash: token.tokenHash, revokedAt: null }, create: token });
  }

  async findTokenByHash(tokenHash: string): Promise<ApiTokenMatch | null> {
    const row = await this.db.apiToken.findUnique({ where: { tokenHash }, include: { user: true } });
    return row ? { id: row.id, userId: row.userId, revokedAt: row.revokedAt, lastUsedAt: row.lastUsedAt, user: toUser(row.user) } : null;
  }

  /** Null when there is no such token. */
  async tokenRevokedAt(id: string): Promise<{ revokedAt: Date | null } | null> {
    return this.db.apiToken.findUnique({ where: { id }, select: { revokedAt: true } });
  }

  async touchToken(id: string): Promise<void> {
    await this.db.apiToken.update({ where: { id }, data: { lastUsedAt: new Date() } });
  }

  /** Oldest first, with the owner's name. */
  async listTokens(): Promise<ApiTokenView[]> {
    const tokens = await this.db.apiToken.findMany({ orderBy: { createdAt: "asc" }, include: { user: { select: { name: true } } } });
    return tokens.map((t) => ({
      id: t.id,
      userId: t.userId,
      userName: t.user.name,
      name: t.name,
      createdAt: t.createdAt.toISOString(),
      lastUsedAt: isoOrNull(t.lastUsedAt),
      revokedAt: isoOrNull(t.revokedAt),
    }));
  }

  /** False when there is no such live token. */
  async revokeToken(id: string): Promise<boolean> {
    const { count } = await this.db.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    return count > 0;
  }
}
