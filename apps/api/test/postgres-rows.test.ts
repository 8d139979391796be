// Rows of named statements on PostgreSQL are parsed by a function compiled once per statement
// (db/postgres-rows.ts). They must equal what pg's own parsing gives, for every type the
// schema uses, and follow a statement whose columns changed.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptRowsQuery, type RowShape } from '../src/db/postgres-rows.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

const TYPES = `select 1::int4 as i, 9007199254740993::int8 as big, 1.5::float8 as f, 12.30::numeric as n, true as b,
  'text'::text as t, null::text as nothing, '2026-11-27T10:00:00Z'::timestamptz as at, '2026-11-27'::date as d,
  '{"a":[1,2]}'::jsonb as j, '{"b":null}'::json as js, array['x','y']::text[] as arr, '\\x0102'::bytea as bytes,
  'dup-1' as dup, 'dup-2' as dup, $1::text as param`;

describe.runIf(process.env.TEST_DATABASE === 'postgres')('rows of named statements', () => {
  let database: TestDatabase;
  let client: pg.Client;
  const KeptRowsQuery = keptRowsQuery(pg);
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await database?.dispose();
  });

  const kept = (shapes: Map<string, RowShape>, name: string, text: string, values: unknown[]) =>
    new Promise<pg.QueryResult>((resolve, reject) => {
      const query = new KeptRowsQuery(name, text, values, shapes) as pg.Query & { callback?: (error: Error | undefined, result: pg.QueryResult) => void };
      query.callback = (error, result) => (error ? reject(error) : resolve(result));
      void client.query(query);
    });

  it('equal the rows pg parses itself, for every type, on the first answer and the next', async () => {
    const shapes = new Map<string, RowShape>();
    const own = await client.query(TYPES, ['v']);
    for (let i = 0; i < 3; i++) {
      const result = await kept(shapes, 'types', TYPES, ['v']);
      expect(result.rows).toEqual(own.rows);
      expect(Object.keys(result.rows[0])).toEqual(Object.keys(own.rows[0]));
      expect(result.fields.map((f) => f.name)).toEqual(own.fields.map((f) => f.name));
      expect(result.rowCount).toBe(1);
    }
    expect(shapes.get('types')!.fields).toHaveLength(16);
    const rows = await kept(shapes, 'many', 'select g, g::text as s from generate_series(1, 3) g', []);
    expect(rows.rows).toEqual([{ g: 1, s: '1' }, { g: 2, s: '2' }, { g: 3, s: '3' }]);
    expect((await kept(shapes, 'none', 'select 1 as one where false', [])).rows).toEqual([]);
  });

  it('follow a statement whose description changed under its kept shape', async () => {
    const shapes = new Map<string, RowShape>();
    await kept(shapes, 'changing', 'select 1 as a', []);
    // The same name answering other columns (as after a migration): parsed from the new description.
    const other = await kept(shapes, 'changing2', "select 'x' as a, 2 as b", []);
    shapes.set('changing2', shapes.get('changing')!);
    const again = await kept(shapes, 'changing2', "select 'x' as a, 2 as b", []);
    expect(other.rows).toEqual([{ a: 'x', b: 2 }]);
    expect(again.rows).toEqual([{ a: 'x', b: 2 }]);
    expect(shapes.get('changing2')!.fields.map((f) => f.name)).toEqual(['a', 'b']);
  });

  it('leave a column named __proto__ to pg', async () => {
    const shapes = new Map<string, RowShape>();
    const result = await kept(shapes, 'proto', 'select 1 as "__proto__", 2 as x', []);
    expect(result.rows[0].x).toBe(2);
    expect(shapes.has('proto')).toBe(false);
  });
});
