import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type PgModule from 'pg';

/** Statements whose answer their caller does not read (`deferredWrite`): in a transaction, sent with the next one. */
const deferredWrites = new WeakSet<CompiledQuery>();

/**
 * Marks `query`, a write whose result its caller does not read (it is answered as an empty
 * result), to be sent in the same round trip as the next statement of its transaction, or
 * its `commit`. An error it meets fails that statement or the commit, and so the
 * transaction, as it would have failed at once. Outside a transaction it runs at once.
 */
export function deferredWrite(query: CompiledQuery): CompiledQuery {
  deferredWrites.add(query);
  return query;
}

/** Conditional updates whose caller needs to know they changed their row (`assertedWrite`). */
const assertedWrites = new WeakSet<CompiledQuery>();

/**
 * Marks `query`, an update (without `returning`) that must change exactly one row for its
 * unit of work to stand, such as a compare-and-set on the state its caller read. In an
 * optimistic transaction (`OPTIMISTIC`) it is taken to have changed its row and sent with
 * the transaction's next statement or its `commit`, as a statement that fails when it changed
 * none: the transaction then ends rolled back and `OptimismFailed` is thrown, for the unit
 * of work to run again without optimism. Elsewhere it runs at once and answers its count.
 */
export function assertedWrite(query: CompiledQuery): CompiledQuery {
  assertedWrites.add(query);
  return query;
}

/**
 * The first statement of an optimistic transaction (never sent): its asserted writes
 * (`assertedWrite`) wait to go out with what follows them. A unit of work that reads,
 * updates with a compare-and-set, then inserts is then one round trip: `begin`, the update,
 * the inserts and `commit` in one write.
 */
export const OPTIMISTIC = CompiledQuery.raw('-- optimistic transaction');

/**
 * The first statement of a shared transaction (never sent): an optimistic transaction that
 * sends nothing before its `commit`, carrying the units of work of several requests
 * (gathered-units.ts). A statement whose answer a unit would wait for is not sent: it
 * fails with `NeedsAnswer`, and that unit's statements are taken out at its `UNIT_END`.
 */
export const SHARED = CompiledQuery.raw('-- shared transaction');

/** A unit of work of a shared transaction begins (never sent). */
export const UNIT_START = CompiledQuery.raw('-- unit of work starts');

/**
 * A unit of work of a shared transaction has ended (never sent): `UNIT_END.kept` when it
 * returned, `UNIT_END.undone` when it threw. Its statements stay in the transaction only when
 * it returned without asking for an answer; the result's one row says whether it asked
 * (`{ neededAnswer }`).
 */
export const UNIT_END = { kept: CompiledQuery.raw('-- unit of work returned'), undone: CompiledQuery.raw('-- unit of work threw') };

/** A unit of work of a shared transaction asked for an answer from PostgreSQL: it must run in a transaction of its own. */
export class NeedsAnswer extends Error {
  constructor() {
    super('a unit of work of a shared transaction waited for an answer');
    this.name = 'NeedsAnswer';
  }
}

/** An asserted write of an optimistic transaction changed no row: the transaction was rolled back. */
export class OptimismFailed extends Error {
  constructor() {
    super('a conditional update of an optimistic transaction changed no row');
    this.name = 'OptimismFailed';
  }
}

/** PostgreSQL's `division_by_zero`: how an asserted write that changed no row fails (`1 / count(*)`). */
const CHANGED_NO_ROW = '22012';

/**
 * Kysely's PostgreSQL dialect on a pg pool in pipeline mode (pg 8.23: a client writes each
 * query at once, without waiting for the answers of those before it), so that a
 * transaction costs the server fewer round trips: `begin` is sent with the transaction's
 * first statement, and deferred writes (`deferredWrite`: the inserts a unit of work ends
 * with) with its `commit`. A unit of work that reads, updates, then inserts is two round
 * trips, not four. Each batch goes out in one write to the socket, so the server reads it
 * in one wake-up. Everything else is as Kysely's PostgresDialect.
 */
export class PipelinedPostgresDialect implements Dialect {
  constructor(private readonly pool: PgModule.Pool) {}

  createDriver(): Driver {
    return new PipelinedPostgresDriver(this.pool);
  }

  createQueryCompiler(): PostgresQueryCompiler {
    return new PostgresQueryCompiler();
  }

  createAdapter(): PostgresAdapter {
    return new PostgresAdapter();
  }

  createIntrospector(db: Parameters<Dialect['createIntrospector']>[0]): PostgresIntrospector {
    return new PostgresIntrospector(db);
  }
}

class PipelinedPostgresDriver implements Driver {
  private readonly connections = new WeakMap<PgModule.PoolClient, PipelinedConnection>();
  private ended = false;

  constructor(private readonly pool: PgModule.Pool) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.pool.connect();
    if (this.ended) {
      client.release();
      throw new Error('the database is closed');
    }
    let connection = this.connections.get(client);
    if (!connection) this.connections.set(client, (connection = new PipelinedConnection(client)));
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let sql = 'begin';
    if (settings.isolationLevel || settings.accessMode) {
      sql = 'start transaction';
      if (settings.isolationLevel) sql += ` isolation level ${settings.isolationLevel}`;
      if (settings.accessMode) sql += ` ${settings.accessMode}`;
    }
    (connection as PipelinedConnection).begin(sql);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PipelinedConnection).commit();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PipelinedConnection).rollback();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as PipelinedConnection).client.release();
  }

  async destroy(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.pool.end();
  }
}

/**
 * A statement of a batch: SQL with its parameters, or without (sent as a simple query:
 * `begin`, `commit`); `asserted`: an asserted write, which fails when it changed no row.
 */
type Statement = { sql: string; parameters?: readonly unknown[]; asserted?: true };

/** The parts of pg's Client that a batch is written through: its socket, corked while the batch's queries are submitted. */
interface ClientSocket {
  connection?: { stream?: { cork?(): void; uncork?(): void } };
}

class PipelinedConnection implements DatabaseConnection {
  /** The `begin` of the transaction, until it goes out with the transaction's first statement. */
  private pendingBegin: string | null = null;
  /** The deferred writes of the transaction not sent yet. */
  private deferred: Statement[] = [];
  /** Whether a transaction's `begin` went out and neither its commit nor its rollback has. */
  private open = false;
  /** Whether the transaction is optimistic (`OPTIMISTIC`): its asserted writes are deferred. */
  private optimistic = false;
  /** Whether the transaction is shared (`SHARED`): nothing goes out before its commit. */
  private shared = false;
  /** In a shared transaction, where the current unit's statements begin among the deferred, and whether it asked for an answer. */
  private unitStart = 0;
  private unitNeededAnswer = false;

  constructor(readonly client: PgModule.PoolClient) {}

  begin(sql: string): void {
    this.pendingBegin = sql;
    this.deferred = [];
    this.optimistic = false;
    this.shared = false;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const inTransaction = this.open || this.pendingBegin !== null;
    if (query === OPTIMISTIC || query === SHARED) {
      this.optimistic = inTransaction;
      this.shared = inTransaction && query === SHARED;
      return { rows: [] };
    }
    if (this.shared && (query === UNIT_START || query === UNIT_END.kept || query === UNIT_END.undone)) return this.unitBoundary(query) as QueryResult<R>;
    if (deferredWrites.has(query) && inTransaction) {
      this.deferred.push(query);
      return { rows: [] };
    }
    if (this.optimistic && inTransaction && assertedWrites.has(query) && isPlainUpdate(query)) {
      // Taken to have changed its row; fails the transaction at its batch when it changed none.
      this.deferred.push({ sql: assertedSql(query.sql), parameters: query.parameters, asserted: true });
      return { rows: [], numAffectedRows: 1n };
    }
    if (this.shared && inTransaction) {
      this.unitNeededAnswer = true;
      throw new NeedsAnswer();
    }
    const { command, rowCount, rows } = await this.send(query);
    const writes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
    return { numAffectedRows: writes ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
  }

  /** A unit of a shared transaction starts or ends: at its end its statements are taken out unless it returned without asking for an answer. */
  private unitBoundary(query: CompiledQuery): QueryResult<{ neededAnswer: boolean }> {
    if (query === UNIT_START) {
      this.unitStart = this.deferred.length;
      this.unitNeededAnswer = false;
      return { rows: [] };
    }
    if (query === UNIT_END.undone || this.unitNeededAnswer) this.deferred.length = this.unitStart;
    return { rows: [{ neededAnswer: this.unitNeededAnswer }] };
  }

  async commit(): Promise<void> {
    if (this.pendingBegin !== null && !this.deferred.length) {
      this.pendingBegin = null; // nothing was sent: there is nothing to commit
      return;
    }
    await this.send({ sql: 'commit' }, true);
  }

  async rollback(): Promise<void> {
    this.deferred = [];
    if (this.pendingBegin !== null) {
      this.pendingBegin = null;
      return;
    }
    if (this.open) await this.send({ sql: 'rollback' }, true);
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not configured for PostgreSQL');
  }

  /**
   * Sends the transaction's pending `begin`, its deferred writes, then `statement`, in one
   * write to the socket; answers `statement`'s result, or the first error of the batch (the
   * statements after a failed one fail as the transaction is aborted). `ends`: the statement
   * ends the transaction (whatever the answer, it is over).
   */
  private async send(statement: Statement, ends = false): Promise<PgModule.QueryResult> {
    const batch: Statement[] = [];
    if (this.pendingBegin !== null) {
      batch.push({ sql: this.pendingBegin });
      this.pendingBegin = null;
      this.open = true;
    }
    batch.push(...this.deferred, statement);
    this.deferred = [];
    if (ends) this.open = false;
    if (batch.length === 1) return this.query(statement).catch(rethrown);
    const stream = (this.client as unknown as ClientSocket).connection?.stream;
    stream?.cork?.();
    let answers: Promise<PgModule.QueryResult>[];
    try {
      answers = batch.map((s) => this.query(s));
    } finally {
      stream?.uncork?.();
    }
    const settled = await Promise.allSettled(answers);
    const failed = settled.findIndex((s) => s.status === 'rejected');
    if (failed >= 0) {
      const reason = (settled[failed] as PromiseRejectedResult).reason as { code?: unknown };
      if (batch[failed]!.asserted && reason?.code === CHANGED_NO_ROW) {
        // The statements after it failed too (the transaction is aborted); a commit among them ended it.
        throw new OptimismFailed();
      }
      throw rethrown(reason);
    }
    return (settled[settled.length - 1] as PromiseFulfilledResult<PgModule.QueryResult>).value;
  }

  private query(statement: Statement): Promise<PgModule.QueryResult> {
    return statement.parameters ? this.client.query(statement.sql, [...statement.parameters]) : this.client.query(statement.sql);
  }
}

/** The asserted form of each update's SQL seen (`assertedSql`), at most ASSERTED_KEPT. */
const assertedForms = new Map<string, string>();
const ASSERTED_KEPT = 500;

/**
 * An asserted write's statement: the update, then a division by the count of rows it
 * changed (zero fails it). One string per update's text, so that where it is looked up by
 * its text (its statement name) its hash is not computed again for each unit of work.
 */
function assertedSql(update: string): string {
  let sql = assertedForms.get(update);
  if (sql === undefined) {
    sql = `with asserted as (${update} returning 1) select 1 / count(*) from asserted`;
    if (assertedForms.size >= ASSERTED_KEPT) assertedForms.clear();
    assertedForms.set(update, sql);
  }
  return sql;
}

/** An update without `returning` (what an asserted write may be). */
function isPlainUpdate(query: CompiledQuery): boolean {
  return query.query.kind === 'UpdateQueryNode' && !query.query.returning;
}

/** pg's error with this caller's stack below its own (pg's ends in the socket's read). */
function rethrown(error: unknown): never {
  if (error instanceof Error) {
    const here = new Error();
    error.stack = `${error.stack}\n${here.stack?.split('\n').slice(1).join('\n')}`;
  }
  throw error;
}
