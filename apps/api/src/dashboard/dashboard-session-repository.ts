import type { Db } from '../db/database.js';
import type { DashboardSessionsTable } from './dashboard-tables.js';

export type DashboardSessionRow = DashboardSessionsTable;

/** SQL of `dashboard_sessions` (by the hash of the session id). */
export class DashboardSessionRepository {
  constructor(private readonly db: Db) {}

  async insert(row: DashboardSessionRow): Promise<void> {
    await this.db.insertInto('dashboard_sessions').values(row).execute();
  }

  /** A session that has not expired at `now`. */
  findLive(idHash: string, now: string): Promise<DashboardSessionRow | undefined> {
    return this.db.selectFrom('dashboard_sessions').selectAll().where('id_hash', '=', idHash).where('expires_at', '>', now).executeTakeFirst();
  }

  async update(idHash: string, changes: Partial<DashboardSessionRow>): Promise<void> {
    await this.db.updateTable('dashboard_sessions').set(changes).where('id_hash', '=', idHash).execute();
  }

  /** Answers the notice and clears it (unless another was left meanwhile). */
  async takeNotice(idHash: string): Promise<string | null> {
    const row = await this.db.selectFrom('dashboard_sessions').select('notice').where('id_hash', '=', idHash).executeTakeFirst();
    const notice = row?.notice ?? null;
    if (notice !== null) {
      await this.db.updateTable('dashboard_sessions').set({ notice: null }).where('id_hash', '=', idHash).where('notice', '=', notice).execute();
    }
    return notice;
  }

  async delete(idHash: string): Promise<void> {
    await this.db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
  }

  /** Deletes the sessions expired at `now`; answers how many. */
  async deleteExpired(now: string): Promise<number> {
    const result = await this.db.deleteFrom('dashboard_sessions').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
