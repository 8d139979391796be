import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { Transactor } from '../db/transactor.js';
import { recordEvent, type NewEvent, type RecordedEvent } from './event-outbox.js';

/** Records whose lifecycle goes on after the unit of work that created them. */
export type LifecycleSubject = 'transfer' | 'direct_transfer' | 'fill_request';

/**
 * One unit of work: the writes of a state change and the events that report it commit
 * together or not at all. Every action of an area's lifecycle takes one as its first
 * argument, so an action never commits without its events, and a caller (the API, an
 * admin command, a sandbox step) can run several actions in one.
 */
export interface UnitOfWork {
  /** The transaction every write of the work goes through. */
  readonly trx: Db;
  /** The request that caused the work: an API request's id, an admin command's, or the one a job carries. */
  readonly requestId: string;
  /** The events recorded so far, in order. */
  readonly events: readonly RecordedEvent[];
  /** Records an event of the owner in this unit of work. */
  emit(owner: Owner, event: NewEvent): Promise<void>;
  /** A new record whose lifecycle goes on later (the sandbox's simulated pharmacy takes up sandbox records). */
  started(owner: Owner, subject: LifecycleSubject, token: string): Promise<void>;
}

/** What the composition root plugs into every unit of work. */
interface UnitOfWorkHooks {
  /** Runs in the unit of work when a record's lifecycle starts. */
  started?: (uow: UnitOfWork, owner: Owner, subject: LifecycleSubject, token: string) => Promise<void>;
  /** Runs after a unit of work that recorded events has committed (so delivery starts at once). */
  committed?: (events: readonly RecordedEvent[]) => void;
}

/** Opens units of work over the transactor. */
export class UnitsOfWork {
  constructor(
    private readonly transactor: Transactor,
    private readonly hooks: UnitOfWorkHooks = {},
  ) {}

  /** Runs `work` in one transaction; answers its result once committed. */
  async run<T>(requestId: string, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    let recorded: readonly RecordedEvent[] = [];
    const result = await this.transactor.run((trx) => {
      const uow = this.open(trx, requestId);
      recorded = uow.events;
      return work(uow);
    });
    if (recorded.length) this.hooks.committed?.(recorded);
    return result;
  }

  private open(trx: Db, requestId: string): UnitOfWork {
    const events: RecordedEvent[] = [];
    const hooks = this.hooks;
    const uow: UnitOfWork = {
      trx,
      requestId,
      events,
      async emit(owner, event) {
        events.push(await recordEvent(trx, owner, event, requestId));
      },
      async started(owner, subject, token) {
        await hooks.started?.(uow, owner, subject, token);
      },
    };
    return uow;
  }
}
