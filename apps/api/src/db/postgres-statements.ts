import { CompiledQuery } from 'kysely';
import type PgModule from 'pg';
import { keptRowsQuery, type KeptRowsQueryClass, type RowShape } from './postgres-rows.js';

/** At most this many SQL texts get a name; others stay unnamed (a query builder can make many texts, e.g. `in` lists of every length). */
const MAX_NAMED = 2000;

/** What begins the SQL of a statement sent unnamed, so planned at each call (`plannedEachTime`). */
const PLANNED_EACH_TIME = '/* planned each time */ ';

/**
 * `query` sent unnamed on PostgreSQL: parsed and planned at each call, for the values of
 * that call, not kept as a named statement (elsewhere it runs as it is; the comment is SQL).
 *
 * For the reads of a table that grows from nothing while they are kept: a named statement's
 * sixth run is planned once for any values (a generic plan) on what the table held then.
 * A worker's poll of its job table (job-claims.ts) is prepared when the service starts,
 * often on an empty table, where a sequential scan is the cheapest plan; that plan stays
 * while the table grows, until PostgreSQL analyzes it (autovacuum, up to a minute or more
 * later), and each poll reads the whole table: on a fresh database under load, 5 ms a poll
 * at 13,000 events against 0.03 ms through the index.
 */
export function plannedEachTime(query: CompiledQuery): CompiledQuery {
  return CompiledQuery.raw(PLANNED_EACH_TIME + query.sql, [...query.parameters]);
}

/** PostgreSQL's answer when a kept plan's columns changed under it (a migration added or dropped one: `select *`). */
const STALE_PLAN = '0A000';

/**
 * Named statements for Kysely's queries on PostgreSQL. Kysely sends every query unnamed,
 * which the server parses and plans each time; a named statement is parsed once per
 * connection, then only bound and executed. Names are kept per SQL text (Kysely's SQL is
 * parameterized), for every connection of the pool.
 *
 * A migration that changes a table's columns leaves plans of `select *` stale: PostgreSQL
 * refuses them (`0A000`). Every name is then replaced (a new generation), so each
 * connection prepares afresh; the query that met the stale plan is sent again unnamed when
 * it ran outside a transaction, and fails otherwise (its transaction is already aborted).
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  /** By statement name: how its rows are parsed (postgres-rows.ts). */
  private readonly shapes = new Map<string, RowShape>();
  private readonly Query: KeptRowsQueryClass;
  private generation = 0;

  constructor(pg: typeof PgModule) {
    this.Query = keptRowsQuery(pg);
  }

  nameOf(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < MAX_NAMED) {
      name = `k${this.generation}_${this.names.size}`;
      this.names.set(text, name);
    }
    return name;
  }

  /** Forgets every name, so the next use of each text prepares it again under a new one. */
  renew(): void {
    this.names.clear();
    this.shapes.clear();
    this.generation++;
  }

  /** Sends `client`'s plain `query(text, values)` calls (Kysely's) as named statements, but for those `plannedEachTime`. */
  install(client: PgModule.PoolClient): void {
    const plain = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    const names = this;
    (client as { query: unknown }).query = function query(...args: unknown[]): unknown {
      const [text, values] = args;
      if (typeof text !== 'string' || args.length !== 2 || !Array.isArray(values)) return plain(...args);
      if (text.startsWith(PLANNED_EACH_TIME)) return plain(text, values);
      const name = names.nameOf(text);
      if (name === undefined) return plain(text, values);
      const query = new names.Query(name, text, values, names.shapes) as PgModule.Query & { callback?: (error: Error | undefined, result: unknown) => void };
      const answered = new Promise((resolve, reject) => {
        query.callback = (error, result) => (error ? reject(error) : resolve(result));
      });
      plain(query);
      return answered.catch((error: { code?: string }) => {
        if (error?.code !== STALE_PLAN) throw error;
        names.renew();
        // Outside a transaction nothing was changed, so the query is sent again, unnamed.
        if ((client as unknown as { _txStatus?: string })._txStatus === 'I') return plain(text, values);
        throw error;
      });
    };
  }
}
