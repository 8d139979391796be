import type { Db } from '../db/database.js';
import { updatedOneRow } from '../db/database.js';
import { executeInserts, rowByKey } from '../db/transactor.js';
import type { MediaStatus, MediaTable } from './media-tables.js';

export type MediaRow = MediaTable;

export class MediaRepository {
  constructor(private readonly db: Db) {}

  async insert(trx: Db, row: MediaRow): Promise<void> {
    await executeInserts(trx, [trx.insertInto('media').values(row)]);
  }

  /** The file with this id, whoever owns it (the signed addresses name no owner; callers check it). */
  find(id: string, trx: Db = this.db): Promise<MediaRow | undefined> {
    return rowByKey(trx, 'media', 'id', id);
  }

  /** Moves the file from `from` to `to` (with `changes`); false when it was no longer in `from`. */
  async move(trx: Db, id: string, from: MediaStatus, to: MediaStatus, at: string, changes: Partial<Pick<MediaRow, 'content_type' | 'size' | 'check_result'>> = {}): Promise<boolean> {
    const result = await trx.updateTable('media').set({ status: to, updated_at: at, ...changes }).where('id', '=', id).where('status', '=', from).executeTakeFirst();
    return updatedOneRow(result);
  }
}
