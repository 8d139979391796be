import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { Transactor } from '../db/transactor.js';
import { EventOutbox, type NewEvent } from './event-outbox.js';

/** The outbox, counting what it recorded so a commit that recorded events can wake delivery. */
export class CountingOutbox extends EventOutbox {
  recorded = 0;

  override async record(trx: Db, owner: Owner, event: NewEvent) {
    const result = await super.record(trx, owner, event);
    this.recorded++;
    return result;
  }
}

/**
 * A transactor that calls `committed` after a unit of work that recorded events commits,
 * so delivery starts at once instead of at the worker's next poll. (Counting is
 * process-wide: a concurrent unit of work may wake the worker needlessly, which is harmless.)
 */
export class NotifyingTransactor implements Transactor {
  constructor(
    private readonly inner: Transactor,
    private readonly outbox: CountingOutbox,
    private readonly committed: () => void,
  ) {}

  async run<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    const before = this.outbox.recorded;
    const result = await this.inner.run(work);
    if (this.outbox.recorded !== before) this.committed();
    return result;
  }
}
