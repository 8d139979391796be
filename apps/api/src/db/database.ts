import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { Kysely } from 'kysely';
import { DatabaseSync, type DatabaseSyncInstance, type StatementSyncInstance } from '@photostructure/sqlite';
import type PgModule from 'pg';
import { isPostgresUrl, type PostgresConfig } from '../config.js';
import { ImmediateSqliteDialect } from './immediate-sqlite-dialect.js';
import { StatementNames } from './postgres-statements.js';
import { PipelinedPostgresDialect } from './pipelined-postgres.js';

/**
 * Every table, as Kysely sees it. The kernel names no table: each area declares its own
 * into this interface from its `*-tables.ts`, by declaration merging:
 *
 *     declare module '../db/database.js' {
 *       interface Database { transfer_requests: TransferRequestsTable }
 *     }
 */
export interface Database {}

/** Booleans are stored as 0 or 1 on both dialects. */
export type Flag = 0 | 1;

export type Dialect = 'sqlite' | 'postgres';

/** Whether a conditional UPDATE changed exactly one row (false: the row had moved on, or is not there). */
export function updatedOneRow(result: { numUpdatedRows: bigint }): boolean {
  return Number(result.numUpdatedRows) === 1;
}
/**
 * Whether a statement failed on a unique index (PostgreSQL's `23505`, SQLite's
 * `SQLITE_CONSTRAINT_UNIQUE`): a write that lost a race to an equal one.
 */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; extendedCode?: unknown; message?: unknown };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.extendedCode === 'SQLITE_CONSTRAINT_UNIQUE' || (typeof e?.message === 'string' && e.message.startsWith('UNIQUE constraint failed'));
}

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  /** The embedded database's one connection, as its group commit watches it (absent on PostgreSQL). */
  embedded?: EmbeddedConnection;
  close(): Promise<void>;
}

/** What the embedded database's group commit reads of its one connection (group-commit.ts). */
export interface EmbeddedConnection {
  /** How many statements that may write (any but a `select`) have run on it so far. */
  readonly writes: number;
  /** Whether a transaction is open on it: SQLite ends one itself after some errors (a full disk, an I/O error). */
  readonly inTransaction: boolean;
}

type SqlParameter = Parameters<StatementSyncInstance['run']>[number];

/** A prepared statement as Kysely's SQLite driver uses it, with its `reader` flag known once. */
interface CachedStatement {
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
}

/**
 * Builds rows of one statement's columns as object literals of one shape: the driver reads
 * rows as arrays, and objects it would build itself are dictionaries (slow properties):
 * spreading one of 30 columns costs ~9 µs, and serializing it twice what a literal costs. A
 * repeated column name keeps its last value, as the driver's objects do. The names are
 * written as JSON string literals, so no name can be code.
 */
function rowBuilder(columns: readonly string[]): (values: unknown[]) => Record<string, unknown> {
  const fields = columns.map((name, i) => `${JSON.stringify(name)}: values[${i}]`).join(', ');
  return new Function('values', `return { ${fields} };`) as (values: unknown[]) => Record<string, unknown>;
}

/** A statement that only reads: any other may write, and is counted (EmbeddedConnection.writes). */
const READ_ONLY = /^\s*select\b/i;

/** What a kept statement tells its connection before each run (StatementCache). */
interface StatementHooks {
  /** Before a statement that may write: counted, and the turn's read ends first. */
  write(): void;
  /** Before a statement that only reads: it joins the turn's read. */
  read(): void;
  /** Before a statement read row by row: the turn's read ends first (the rows may be read after the turn). */
  stream(): void;
}

/** `statement`, kept; `hooks` hear of each run. */
function cacheStatement(statement: StatementSyncInstance, hooks: StatementHooks): CachedStatement {
  const before = READ_ONLY.test(statement.sourceSQL) ? hooks.read : hooks.write;
  const streamed = before === hooks.read ? hooks.stream : hooks.write;
  const run = (parameters: readonly unknown[]) => {
    before();
    return statement.run(...(parameters as SqlParameter[]));
  };
  if (statement.columns().length === 0) {
    return {
      reader: false,
      all(parameters) {
        before();
        return statement.all(...(parameters as SqlParameter[]));
      },
      run,
      iterate(parameters) {
        streamed();
        return statement.iterate(...(parameters as SqlParameter[]));
      },
    };
  }
  statement.setReturnArrays(true);
  let columns = 0;
  let builder = (_values: unknown[]): Record<string, unknown> => ({});
  // A schema change (another process's migration) re-prepares the statement inside SQLite:
  // a `select *` then answers other columns, so the builder follows the row's width.
  const build = (values: unknown[]) => {
    if (values.length !== columns) {
      const names = statement.columns().map((column) => column.name);
      columns = names.length;
      builder = rowBuilder(names);
    }
    return builder(values);
  };
  return {
    reader: true,
    all(parameters) {
      before(); // an insert or update `returning` its rows counts as a write
      const rows = statement.all(...(parameters as SqlParameter[])) as unknown as unknown[][];
      const built: unknown[] = new Array(rows.length);
      for (let i = 0; i < rows.length; i++) built[i] = build(rows[i]!);
      return built;
    },
    run,
    *iterate(parameters) {
      streamed();
      for (const values of statement.iterate(...(parameters as SqlParameter[])) as Iterable<unknown[]>) yield build(values);
    },
  };
}

/** Statements that change the schema: after one, every kept statement is prepared again. */
const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;

/**
 * Kysely prepares every query it runs; preparing costs more than running a point lookup,
 * so statements are kept per SQL text (Kysely's SQL is parameterized, so the set is small).
 * The embedded database's one connection, so it also counts the statements that may write.
 *
 * Reads of one turn share one read transaction. Outside a transaction, SQLite begins and
 * ends one around every statement: in WAL mode that is a lock and an unlock of the shared
 * memory (two `fcntl`s) and a look at the log's header, about 7 µs of a point read's 12 on
 * the 2-core machine. So the first `select` outside a transaction in a turn of the event
 * loop begins one (`begin`, deferred: no lock until the read), the others of that turn run
 * in it, and it ends at the turn's end (`setImmediate`) or before any other statement,
 * whichever comes first: a write, a `begin immediate` or a statement read row by row never
 * runs in it. The reads of a turn see one snapshot, taken by its first read; whatever this
 * process writes ends it first, so a read always sees this process's writes before it, and
 * another process's commit is seen from the next turn on.
 */
class StatementCache implements EmbeddedConnection, StatementHooks {
  private readonly statements = new Map<string, CachedStatement>();
  writes = 0;
  /** Whether the open transaction is the turn's read (begun here), not a caller's. */
  private reading = false;
  private endScheduled = false;
  private readonly beginRead: StatementSyncInstance;
  private readonly endRead: StatementSyncInstance;

  constructor(
    private readonly sqlite: DatabaseSyncInstance,
    private readonly maxStatements = 1000,
  ) {
    this.beginRead = sqlite.prepare('begin');
    this.endRead = sqlite.prepare('commit');
  }

  readonly write = (): void => {
    if (this.reading) this.endTurnRead();
    this.writes++;
  };

  readonly read = (): void => {
    if (this.reading || this.sqlite.isTransaction) return;
    this.beginRead.run();
    this.reading = true;
    if (!this.endScheduled) {
      this.endScheduled = true;
      setImmediate(this.endAtTurnEnd);
    }
  };

  readonly stream = (): void => {
    if (this.reading) this.endTurnRead();
  };

  private readonly endAtTurnEnd = (): void => {
    this.endScheduled = false;
    if (this.reading) this.endTurnRead();
  };

  private endTurnRead(): void {
    this.reading = false;
    if (!this.sqlite.isTransaction) return;
    // A read-only transaction: its commit writes nothing and only releases the snapshot.
    // Should it fail, the snapshot is let go all the same, not left to hold back writers.
    try {
      this.endRead.run();
    } catch {
      this.sqlite.exec('rollback');
    }
  }

  prepare(sql: string): CachedStatement {
    if (SCHEMA_CHANGE.test(sql)) {
      // Kept statements would still name the old columns; this one runs once.
      this.statements.clear();
      return cacheStatement(this.sqlite.prepare(sql), this);
    }
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = cacheStatement(this.sqlite.prepare(sql), this);
      if (this.statements.size >= this.maxStatements) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Whether a caller's transaction is open (the turn's read is not one). */
  get inTransaction(): boolean {
    return this.sqlite.isTransaction && !this.reading;
  }

  close(): void {
    if (this.reading) this.endTurnRead();
    this.statements.clear();
    this.sqlite.close();
  }
}

/** The statement cache of each embedded database's Kysely instance (`readNow`). */
const embeddedOf = new WeakMap<Db, StatementCache>();

/**
 * The rows of a `select`, run at once on the embedded database's connection instead of
 * through Kysely: undefined where that cannot be, and the caller goes through Kysely.
 * Kysely's way to the connection (its driver, the connection's lock, a promise at each
 * step) costs a point read 5.5 µs against 2.0 here. It runs at once only on the Kysely
 * instance `openDatabase` made (not a transaction's, not a group commit's connection) and
 * while no caller's transaction is open on the connection: a read must never see another
 * unit's writes before they commit. The turn's read still holds it (StatementCache).
 */
export function readNow(db: Db, sql: string, parameters: readonly unknown[]): unknown[] | undefined {
  const embedded = embeddedOf.get(db);
  if (!embedded || embedded.inTransaction) return undefined;
  return embedded.prepare(sql).all(parameters);
}

/**
 * How long the embedded database's write-ahead log grows, in pages, before the commit that
 * passes it copies the log back into the file (a checkpoint, on the event loop). A busy
 * service rewrites the same pages (an index's last leaf, a prescription's row) commit after
 * commit, and a checkpoint copies each page once: every 4,000 pages instead of SQLite's
 * 1,000, each hot page is copied a quarter as often. Measured on 2026-11-29 (bench/README.md):
 * fill requests +5–10%, patient creates unchanged, p99 at half of peak as before; at 10,000,
 * 4% more fill requests again, but each checkpoint held the event loop longer and the p99 rose.
 */
const WAL_CHECKPOINT_PAGES = 4000;

/**
 * Opens the database DATABASE_URL names: `postgres://...` for PostgreSQL, anything else
 * is the file of the embedded database (created with its folder when missing). `postgres`
 * (PG_POOL_SIZE, PG_SYNCHRONOUS_COMMIT; config.ts) applies to PostgreSQL only.
 */
export function openDatabase(url: string, postgres: Partial<PostgresConfig> = {}): DatabaseHandle {
  if (isPostgresUrl(url)) {
    // pg is loaded for PostgreSQL only: on the embedded database it would cost every process ~7 MB.
    const pg = createRequire(import.meta.url)('pg') as typeof PgModule;
    // Pipeline mode: a client writes each query without waiting for the answers before it (pipelined-postgres.ts).
    const pool = new pg.Pool({ connectionString: url, max: postgres.poolSize ?? 10, pipeline: true });
    // An idle connection the server closed (a restart, an administrator's termination)
    // leaves the pool with this error, and the next query opens another; unheard, the
    // error would end the process.
    pool.on('error', () => undefined);
    const statements = new StatementNames(pg);
    pool.on('connect', (client) => statements.install(client));
    const synchronousCommit = postgres.synchronousCommit;
    if (synchronousCommit) {
      // Once per new connection, queued ahead of its first query (not through `options`:
      // the URL's own `options`, such as a search_path, would replace it).
      pool.on('connect', (client) => void client.query(`set synchronous_commit = ${synchronousCommit}`).catch(() => undefined));
    }
    const db = new Kysely<Database>({ dialect: new PipelinedPostgresDialect(pool) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  const file = resolve(url.replace(/^file:/, ''));
  mkdirSync(dirname(file), { recursive: true });
  // First the wait for another process's lock: switching a new file to WAL takes one too.
  const sqlite = new DatabaseSync(file, { timeout: 5000 });
  // WAL with synchronous=FULL: every committed write survives a power cut.
  sqlite.exec('pragma journal_mode = WAL');
  sqlite.exec('pragma synchronous = FULL');
  sqlite.exec('pragma foreign_keys = ON');
  // The undo journal of a statement inside a transaction (a group commit runs many units in
  // one) in memory, not a temporary file made, written and deleted for that one statement: it
  // is read only to roll the statement back, never to recover after a crash (the WAL is).
  sqlite.exec('pragma temp_store = MEMORY');
  sqlite.exec(`pragma wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  const embedded = new StatementCache(sqlite);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: embedded as never }) });
  embeddedOf.set(db, embedded);
  return { db, dialect: 'sqlite', embedded, close: () => db.destroy() };
}
