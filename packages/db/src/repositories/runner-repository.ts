import type { Database } from "../create-database";

/** A runner process of the deployment: where the others reach it and when it last said it was alive. */
export interface RunnerRecord {
  id: string;
  url: string;
  startedAt: Date;
  heartbeatAt: Date;
}

/** The Runner table: one row per runner id, written by that runner alone (docs/scale-out.md). */
export class RunnerRepository {
  constructor(private readonly db: Database) {}

  /** This runner is up at `url`: a restart under the same id takes its row over. */
  async register(input: { id: string; url: string; at: Date }): Promise<RunnerRecord> {
    const { id, url, at } = input;
    return this.db.runner.upsert({
      where: { id },
      create: { id, url, startedAt: at, heartbeatAt: at },
      update: { url, startedAt: at, heartbeatAt: at },
    });
  }

  /** False when the row is gone (removed by hand): the caller registers again. */
  async heartbeat(id: string, at: Date): Promise<boolean> {
    const { count } = await this.db.runner.updateMany({ where: { id }, data: { heartbeatAt: at } });
    return count > 0;
  }

  get(id: string): Promise<RunnerRecord | null> {
    return this.db.runner.findUnique({ where: { id } });
  }

  list(): Promise<RunnerRecord[]> {
    return this.db.runner.findMany({ orderBy: { id: "asc" } });
  }
}
