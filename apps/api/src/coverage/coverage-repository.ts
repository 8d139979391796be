import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/** The coverage lookup flag on each customer (`customers.coverage_enabled`, migration 020). */
export class CoverageRepository {
  constructor(private readonly db: Db) {}

  async isEnabled(customerId: string): Promise<boolean> {
    const { rows } = await sql<{ coverage_enabled: number }>`select coverage_enabled from customers where id = ${customerId}`.execute(this.db);
    return Number(rows[0]?.coverage_enabled ?? 0) === 1;
  }

  /** Sets the flag; false when no such customer. */
  async setEnabled(customerId: string, enabled: boolean): Promise<boolean> {
    const result = await sql`update customers set coverage_enabled = ${enabled ? 1 : 0} where id = ${customerId}`.execute(this.db);
    return Number(result.numAffectedRows ?? 0) === 1;
  }
}
