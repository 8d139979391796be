import {
  CompiledQuery,
  createQueryId,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Compilable,
  type Selectable,
  type Insertable,
  type Driver,
  type QueryResult,
  type RootOperationNode,
} from 'kysely';
import { readNow, type Database, type DatabaseHandle, type Db } from './database.js';
import { GroupCommitTransactor } from './group-commit.js';
import { sameColumns, shapeName } from './row-shapes.js';
import { gatheredRowsByKeys } from './key-reads.js';
import { deferredWrite, OPTIMISTIC, OptimismFailed } from './pipelined-postgres.js';
import { gathers } from './turn-gathering.js';
import { runShared, type OwnRuns } from './gathered-units.js';

/**
 * Runs a unit of work atomically: every write in `work` commits together or not at all.
 * Services take a Transactor rather than opening transactions themselves, so the embedded
 * database can commit many concurrent units of work with one disk flush (group commit).
 */
export interface Transactor {
  run<T>(work: (trx: Db) => Promise<T>): Promise<T>;
  /**
   * Runs a unit of work that makes at most one write, in one statement (reads around it
   * need not see one snapshot). PostgreSQL runs it without `begin`/`commit`: the statement
   * commits alone, as durably, and saves the round trip of the commit. Absent: `run`.
   */
  runSingleWrite?<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Runs a unit of work whose statements are all inserts (no `returning`) whose results it
   * does not read, and which reads nothing through `db`. PostgreSQL sends them as one
   * statement (data-modifying CTEs) once `work` has returned, committed alone without
   * `begin`/`commit` (one round trip, as a transaction of deferred inserts also is, but
   * one statement for the server instead of three). A `work` that fails writes nothing.
   * Absent: `run`.
   */
  runInserts?<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Runs a unit of work that may run twice: on PostgreSQL first optimistically, its asserted
   * writes (`assertedWrite`: compare-and-set updates) taken to change their row and sent with
   * its inserts and `commit`, so the whole unit is one round trip; when one changed no row,
   * that transaction rolls back and `work` runs again in a transaction of its own in which
   * they run at once. On PostgreSQL the units that concurrent requests start in one turn of
   * the event loop share such a transaction, each seeing what those before it wrote
   * (gathered-units.ts). `work` must do nothing but through `trx` (its first run leaves no
   * trace). Absent: `run`.
   */
  runOptimistic?<T>(work: (trx: Db) => Promise<T>): Promise<T>;
}

/** A unit of work of at most one write statement (Transactor.runSingleWrite), on any Transactor. */
export function runSingleWrite<T>(transactor: Transactor, work: (db: Db) => Promise<T>): Promise<T> {
  return transactor.runSingleWrite ? transactor.runSingleWrite(work) : transactor.run(work);
}

/** A compare-and-set update that an optimistic unit of work sends with its commit (pipelined-postgres.ts). */
export { assertedWrite } from './pipelined-postgres.js';

/** A unit of work that may run twice (Transactor.runOptimistic), on any Transactor. */
export function runOptimistic<T>(transactor: Transactor, work: (trx: Db) => Promise<T>): Promise<T> {
  return transactor.runOptimistic ? transactor.runOptimistic(work) : transactor.run(work);
}

/** A unit of work of inserts only (Transactor.runInserts), on any Transactor. */
export function runInserts<T>(transactor: Transactor, work: (db: Db) => Promise<T>): Promise<T> {
  return transactor.runInserts ? transactor.runInserts(work) : transactor.run(work);
}

/**
 * Runs inserts (no `returning`) in the caller's transaction: on PostgreSQL as one statement
 * (`combineInserts`), sent with the transaction's next statement or its commit (an error it
 * meets fails the transaction there); elsewhere one after the other, at once. Within one
 * transaction the order of its inserts is not seen.
 */
export async function executeInserts(trx: Db, inserts: readonly Compilable[]): Promise<void> {
  if (inserts.length === 0) return;
  const queries = inserts.map((insert) => insert.compile());
  const adapter = trx.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter && !(adapter instanceof CaptureAdapter)) {
    // Their answer is not read: in a transaction they go out with its next statement or its commit.
    const combined = combineInserts(queries);
    await trx.executeQuery(trx.isTransaction ? deferredWrite(combined) : combined);
    return;
  }
  for (const query of queries) await trx.executeQuery(query);
}

/** The SQL of statements Kysely compiled once, by dialect and shape (`reuseCompiled`). */
const compiledShapes = new Map<string, { sql: string; query: RootOperationNode }>();

/**
 * A statement of the hot path compiled by Kysely once per `shape`, then reused with new
 * `parameters` (building and compiling a query costs more than running a point lookup on
 * the embedded database). `build` makes the statement with these parameters; its SQL is
 * kept only when Kysely compiled exactly `parameters`, in order, so a statement whose SQL
 * depends on its values is compiled every time, as without this.
 */
export function reuseCompiled(db: Db, shape: string, parameters: readonly unknown[], build: () => Compilable): CompiledQuery {
  const key = `${db.getExecutor().adapter instanceof PostgresAdapter ? 'pg' : 'other'}:${shape}`;
  const known = compiledShapes.get(key);
  if (known && parameters.every(isPlainValue)) return { sql: known.sql, query: known.query, queryId: createQueryId(), parameters };
  const compiled = build().compile();
  if (!known && compiled.parameters.length === parameters.length && compiled.parameters.every((p, i) => p === parameters[i] && isPlainValue(p))) {
    if (compiledShapes.size >= 500) compiledShapes.clear();
    compiledShapes.set(key, { sql: compiled.sql, query: compiled.query });
  }
  return compiled;
}

/** A value Kysely passes as a parameter as it is (not an expression, nor one it leaves out). */
function isPlainValue(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function' && value !== undefined);
}

/** `db.insertInto(table).values(rows)` through `reuseCompiled` (rows of one shape: the first row's columns). */
export function insertRows<T extends keyof Database & string>(db: Db, table: T, rows: readonly Insertable<Database[T]>[]): Compilable {
  return {
    compile() {
      const columns = Object.keys(rows[0]!);
      const parameters: unknown[] = [];
      for (const row of rows) for (const column of columns) parameters.push((row as Record<string, unknown>)[column]);
      const shape = `insert:${rows.length}:${shapeName(table, columns)}`;
      const sameShape = rows.every((row, i) => i === 0 || sameColumns(Object.keys(row), columns));
      const build = () => db.insertInto(table).values(rows as never);
      return sameShape ? reuseCompiled(db, shape, parameters, build) : build().compile();
    },
  };
}

/** The adapter of an InsertCapture (whose inserts are combined when the work is done). */
class CaptureAdapter extends PostgresAdapter {}

/**
 * The row of `table` whose `column` (its key) is `value`, or undefined: a point read, compiled
 * once per table and column (`reuseCompiled`), as the hot reads by token or id are. On
 * PostgreSQL outside a transaction, the reads of concurrent requests are gathered (key-reads.ts).
 */
export async function rowByKey<T extends keyof Database & string>(db: Db, table: T, column: string, value: string | number): Promise<Selectable<Database[T]> | undefined> {
  if (typeof value === 'string' && gathers(db)) return (await gatheredRowsByKeys(db, table, column, [value]))[0] as Selectable<Database[T]> | undefined;
  const query = reuseCompiled(db, `rowByKey:${table}:${column}`, [value], () => (db as unknown as Kysely<Record<string, Record<string, unknown>>>).selectFrom(table).selectAll().where(column, '=', value));
  const now = readNow(db, query.sql, query.parameters);
  if (now) return now[0] as Selectable<Database[T]> | undefined;
  return (await db.executeQuery<Selectable<Database[T]>>(query)).rows[0];
}

/**
 * The rows of `table` whose `column` (its key) is one of `values`, each once: compiled once
 * per table, column and count of values; gathered like `rowByKey`.
 */
export async function rowsByKeys<T extends keyof Database & string>(db: Db, table: T, column: string, values: readonly string[]): Promise<Selectable<Database[T]>[]> {
  if (!values.length) return [];
  if (gathers(db)) return (await gatheredRowsByKeys(db, table, column, values)) as Selectable<Database[T]>[];
  const query = reuseCompiled(db, `rowsByKeys:${table}:${column}:${values.length}`, values, () => (db as unknown as Kysely<Record<string, Record<string, unknown>>>).selectFrom(table).selectAll().where(column, 'in', values));
  const now = readNow(db, query.sql, query.parameters);
  if (now) return now as Selectable<Database[T]>[];
  return (await db.executeQuery<Selectable<Database[T]>>(query)).rows;
}

/** Whether `db` speaks PostgreSQL (whose statements can combine several inserts). */
export function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Several compiled PostgreSQL inserts as one statement: each but the last in a
 * data-modifying CTE (`with w0 as (insert ...) insert ...`), parameters renumbered.
 * PostgreSQL runs every part of it or none, and checks foreign keys at its end, so a row
 * may reference one inserted by an earlier part.
 */
export function combineInserts(queries: readonly CompiledQuery[]): CompiledQuery {
  if (queries.length === 1) return queries[0]!;
  const parameters: unknown[] = [];
  for (const query of queries) parameters.push(...query.parameters);
  return CompiledQuery.raw(combinedSql(queries), parameters);
}

/** The combined SQL of the lists of statements seen, by each part's SQL in turn (`combinedSql`). */
interface CombinedShapes {
  next: Map<string, CombinedShapes>;
  /** The combined SQL of the list that ends here, and its parts' parameter counts. */
  combined?: { sql: string; counts: number[] };
}

/** Lists of parts kept at most (then forgotten at once). */
const MAX_COMBINED_SHAPES = 500;
let combinedShapes: CombinedShapes = { next: new Map() };
let combinedShapeCount = 0;

/**
 * `combineInserts`' SQL, kept per list of parts: the same text object for the same parts.
 * Built anew, a unit of work's combined statement (a fill request's is some 1,500
 * characters) was renumbered and joined, then hashed and compared again where it is looked
 * up by its text (its statement name): kept, a fill request on PostgreSQL costs the service
 * a tenth less CPU (bench/README.md). The parts come from `reuseCompiled`, whose SQL is one
 * string object per shape, whose hash V8 keeps, so the lookup here is cheap.
 */
function combinedSql(queries: readonly CompiledQuery[]): string {
  if (combinedShapeCount + queries.length > MAX_COMBINED_SHAPES) {
    combinedShapes = { next: new Map() };
    combinedShapeCount = 0;
  }
  let node = combinedShapes;
  for (const query of queries) {
    let next = node.next.get(query.sql);
    if (!next) {
      combinedShapeCount++;
      node.next.set(query.sql, (next = { next: new Map() }));
    }
    node = next;
  }
  const counts = queries.map((query) => query.parameters.length);
  if (node.combined && sameCounts(node.combined.counts, counts)) return node.combined.sql;
  let offset = 0;
  const parts = queries.map((query, i) => {
    const at = offset;
    offset += counts[i]!;
    return at === 0 ? query.sql : query.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + at}`);
  });
  const last = parts.pop()!;
  const sql = `with ${parts.map((part, i) => `w${i} as (${part})`).join(', ')} ${last}`;
  node.combined = { sql, counts };
  return sql;
}

function sameCounts(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((count, i) => count === b[i]);
}

/**
 * A Kysely of PostgreSQL that runs nothing: it keeps the inserts it is given (each answered
 * as one row inserted) for `combineInserts`. Anything else is refused: its result would be
 * made up.
 */
class InsertCapture implements DatabaseConnection {
  readonly queries: CompiledQuery[] = [];
  readonly db: Db;

  constructor() {
    const connection = this as DatabaseConnection;
    const driver: Driver = {
      init: async () => undefined,
      acquireConnection: async () => connection,
      beginTransaction: async () => {
        throw new Error('runInserts: the unit of work is already one statement');
      },
      commitTransaction: async () => undefined,
      rollbackTransaction: async () => undefined,
      releaseConnection: async () => undefined,
      destroy: async () => undefined,
    };
    const dialect: Dialect = {
      createAdapter: () => new CaptureAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    };
    this.db = new Kysely<Database>({ dialect });
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const node = query.query;
    if (node.kind !== 'InsertQueryNode' || node.returning) throw new Error(`runInserts: only inserts without returning, not ${node.kind}`);
    this.queries.push(query);
    return { rows: [], numAffectedRows: 1n };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('runInserts: only inserts');
  }
}

/** One database transaction per unit of work. */
export class SimpleTransactor implements Transactor {
  private readonly postgres: boolean;

  constructor(private readonly db: Db) {
    this.postgres = isPostgres(db);
  }

  run<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /**
   * PostgreSQL: in one transaction with the units of other requests (`runShared`); on its
   * own, optimistic first, then, when an asserted write changed no row, as `run`.
   * Elsewhere `run`.
   */
  runOptimistic<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    if (!this.postgres) return this.run(work);
    return gathers(this.db) ? runShared(this.db, work, this.ownRuns) : this.runOptimisticAlone(work);
  }

  private readonly ownRuns: OwnRuns = { optimistic: (work) => this.runOptimisticAlone(work), pessimistic: (work) => this.run(work) };

  private readonly runOptimisticAlone = async <T>(work: (trx: Db) => Promise<T>): Promise<T> => {
    try {
      return await this.db.transaction().execute(async (trx) => {
        await trx.executeQuery(OPTIMISTIC);
        return work(trx);
      });
    } catch (error) {
      if (error instanceof OptimismFailed) return this.run(work);
      throw error;
    }
  };

  /** Each statement in autocommit: one write statement is atomic on its own. */
  runSingleWrite<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return work(this.db);
  }

  /** PostgreSQL: the inserts as one statement in autocommit; elsewhere a transaction. */
  async runInserts<T>(work: (db: Db) => Promise<T>): Promise<T> {
    if (!this.postgres) return this.run(work);
    const capture = new InsertCapture();
    const result = await work(capture.db);
    if (capture.queries.length) await this.db.executeQuery(combineInserts(capture.queries));
    return result;
  }
}

/**
 * The transactor the service runs on: the embedded database has one writer, so concurrent
 * units of work share one commit (group commit); PostgreSQL gets a transaction per unit.
 */
export function transactorFor(database: DatabaseHandle): Transactor {
  return database.dialect === 'sqlite' ? new GroupCommitTransactor(database.db, database.embedded) : new SimpleTransactor(database.db);
}
