import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import type { Compilable } from 'kysely';
import { executeInserts, runInserts, runOptimistic, type Transactor } from '../db/transactor.js';
import { recordEvent, type NewEvent, type RecordedEvent, type SqlCondition } from './event-outbox.js';
import type { SandboxSimulation } from './sandbox-simulation.js';

/** Records whose lifecycle goes on after the unit of work that created them. */
export type LifecycleSubject = 'transfer' | 'direct_transfer' | 'fill_request' | 'diagnostic_order' | 'consult' | 'same_day_delivery';

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
  /** The owners whose events it recorded, each once (whose records the work touched). */
  readonly owners: readonly Owner[];
  /** Records an event of the owner in this unit of work. */
  emit(owner: Owner, event: NewEvent): Promise<void>;
  /**
   * A new record whose lifecycle goes on later (the sandbox's simulated pharmacy takes up
   * sandbox records), with the `simulation` its create sent, if any.
   */
  started(owner: Owner, subject: LifecycleSubject, token: string, simulation?: SandboxSimulation): Promise<void>;
  /**
   * `started` as inserts for the caller to send with its own (`executeInserts`: on
   * PostgreSQL one statement with them), for a caller that inserts its record that way.
   */
  startedInserts(owner: Owner, subject: LifecycleSubject, token: string, simulation?: SandboxSimulation): Compilable[];
}

/** What the composition root plugs into every unit of work. */
interface UnitOfWorkHooks {
  /** The inserts a record's lifecycle starts with, sent in the unit of work that creates the record. */
  starting?: (uow: UnitOfWork, owner: Owner, subject: LifecycleSubject, token: string, simulation?: SandboxSimulation) => Compilable[];
  /**
   * The SQL condition under which an event of the owner is recorded `pending`, for a
   * delivery worker, rather than `failed` with no attempt; evaluated by the event's insert.
   * Absent, or undefined: every event is `pending`.
   */
  attempting?: (owner: Owner) => SqlCondition | undefined;
  /** Runs after a unit of work that recorded events has committed (so delivery starts at once). */
  committed?: (events: readonly RecordedEvent[]) => void;
}

/** How long a unit of work held for a request's answer waits for it before giving up (rolled back). */
const ANSWER_WAIT_MS = 10_000;

/** A request whose answer is stored in the transaction of its unit of work (see `answerInUnit`). */
interface Answering {
  answer: Promise<unknown>;
  store: (trx: Db, answer: unknown) => Promise<void>;
  /** Set when the request's unit of work opens: settles once it committed (or rolled back). */
  committed?: Promise<void>;
}

/** Opens units of work over the transactor. */
export class UnitsOfWork {
  private readonly answering = new Map<string, Answering>();

  constructor(
    private readonly transactor: Transactor,
    private readonly hooks: UnitOfWorkHooks = {},
  ) {}

  /** Runs `work` in one transaction; answers its result once committed. */
  async run<T>(requestId: string, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    const answering = this.answering.get(requestId);
    if (answering) return this.runHeldForAnswer(answering, requestId, work);
    let recorded: readonly RecordedEvent[] = [];
    // A unit of work touches nothing but its transaction, so it may run twice (an optimistic first run leaves no trace),
    // and share its transaction with the units of other requests (on PostgreSQL: db/gathered-units.ts).
    const result = await runOptimistic(this.transactor, (trx) => {
      const uow = this.open(trx, requestId);
      recorded = uow.events;
      return work(uow);
    });
    this.recorded(recorded);
    return result;
  }

  /**
   * `run` for a unit of work whose writes are all inserts whose results it does not read,
   * and which reads nothing through `uow.trx` (Transactor.runInserts): on PostgreSQL they
   * are one statement, committed alone. A request whose answer is held for its unit of work
   * (`answerInUnit`) runs it as `run` does.
   */
  async runInserts<T>(requestId: string, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    if (this.answering.has(requestId) || !this.transactor.runInserts) return this.run(requestId, work);
    let recorded: readonly RecordedEvent[] = [];
    const result = await runInserts(this.transactor, (trx) => {
      const uow = this.open(trx, requestId);
      recorded = uow.events;
      return work(uow);
    });
    this.recorded(recorded);
    return result;
  }

  /**
   * Runs a request's handler so that its answer is stored in the transaction of the records
   * it writes (an idempotent request: a retry must find both or neither). The one unit of
   * work the handler opens under `requestId` hands its result back at once but stays open
   * until the handler has answered; then `store` runs in it and it commits. The handler
   * must only present the result after its unit of work (no other reads or writes, which
   * would wait for the open transaction on the embedded database). A handler that opens no
   * unit of work has its answer stored on its own.
   */
  async answerInUnit<A>(requestId: string, handle: () => Promise<A>, store: (trx: Db, answer: A) => Promise<void>): Promise<A> {
    let answered!: (answer: A) => void;
    let failed!: (error: unknown) => void;
    const answer = new Promise<A>((resolve, reject) => {
      answered = resolve;
      failed = reject;
    });
    answer.catch(() => undefined); // a failure reaches the caller through `handle`
    const answering: Answering = { answer, store: store as Answering['store'] };
    this.answering.set(requestId, answering);
    try {
      let out: A;
      try {
        out = await handle();
      } catch (error) {
        failed(error);
        await answering.committed?.catch(() => undefined); // rolled back before the caller hears
        throw error;
      }
      answered(out);
      if (answering.committed) await answering.committed;
      else await this.transactor.run((trx) => store(trx, out));
      return out;
    } finally {
      this.answering.delete(requestId);
    }
  }

  private runHeldForAnswer<T>(answering: Answering, requestId: string, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
    if (answering.committed) throw new Error(`request ${requestId} opened a second unit of work while its answer is held`);
    return new Promise<T>((handBack, refuse) => {
      let recorded: readonly RecordedEvent[] = [];
      answering.committed = this.transactor
        .run(async (trx) => {
          const uow = this.open(trx, requestId);
          recorded = uow.events;
          try {
            handBack(await work(uow));
          } catch (error) {
            refuse(error);
            throw error;
          }
          await answering.store(trx, await withTimeout(answering.answer, ANSWER_WAIT_MS, `request ${requestId} did not answer`));
        })
        .then(() => this.recorded(recorded));
      answering.committed.catch(() => undefined); // awaited by answerInUnit
    });
  }

  /** After a unit of work committed: wakes delivery when it recorded events. */
  private recorded(events: readonly RecordedEvent[]): void {
    if (events.length) this.hooks.committed?.(events);
  }

  private open(trx: Db, requestId: string): UnitOfWork {
    const events: RecordedEvent[] = [];
    const owners: Owner[] = [];
    const hooks = this.hooks;
    const uow: UnitOfWork = {
      trx,
      requestId,
      events,
      owners,
      async emit(owner, event) {
        events.push(await recordEvent(trx, owner, event, requestId, hooks.attempting?.(owner)));
        if (!owners.some((o) => o.customerId === owner.customerId && o.environment === owner.environment)) owners.push(owner);
      },
      async started(owner, subject, token, simulation) {
        await executeInserts(trx, uow.startedInserts(owner, subject, token, simulation));
      },
      startedInserts(owner, subject, token, simulation) {
        return hooks.starting?.(uow, owner, subject, token, simulation) ?? [];
      },
    };
    return uow;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
