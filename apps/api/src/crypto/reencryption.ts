import type { Db } from '../db/database.js';
import type { Transactor } from '../db/transactor.js';
import { countNotStartingWith, rewriteSealedColumns, type SealedColumnCount, type SealedColumns } from './sealed-columns.js';
import type { SecretBox } from './secret-box.js';

export interface ReencryptionReport {
  /** The id of the key every value is now sealed with. */
  key_id: string;
  fields: Array<SealedColumnCount & { remaining: number }>;
  /** Values still sealed with another key (changed meanwhile by a process with the old configuration): run again. */
  remaining: number;
}

/**
 * Seals every stored sealed value again under the current key (`pnpm admin reencrypt`),
 * after a rotation made the old key a previous one. It runs beside the service: batches of
 * rows, each written in its own transaction, only where the row still holds what was read.
 * A value no configured key opens stops it with the field, record and key id.
 */
export class Reencryption {
  constructor(
    private readonly db: Db,
    private readonly transactor: Transactor,
    private readonly secrets: SecretBox,
    private readonly tables: readonly SealedColumns[],
  ) {}

  async run(batchSize = 200): Promise<ReencryptionReport> {
    const write = (work: (trx: Db) => Promise<void>) => this.transactor.run(work);
    const fields: ReencryptionReport['fields'] = [];
    for (const spec of this.tables) {
      const counts = await rewriteSealedColumns(this.db, write, spec, (value, context) => this.secrets.reseal(value, context), batchSize);
      const remaining = await countNotStartingWith(this.db, spec, this.secrets.currentPrefix());
      fields.push(...counts.map((count) => ({ ...count, remaining: remaining[count.field] ?? 0 })));
    }
    return {
      key_id: this.secrets.keyring().current.id,
      fields,
      remaining: fields.reduce((sum, f) => sum + f.remaining, 0),
    };
  }
}
