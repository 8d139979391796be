// combineInserts (db/transactor.ts): several inserts of a unit of work as one PostgreSQL
// statement, parameters renumbered; its SQL kept per list of parts, so the same parts give
// the same text object (looked up by its text where it is named: postgres-statements.ts).
import { CompiledQuery } from 'kysely';
import { describe, expect, it } from 'vitest';
import { combineInserts } from '../src/db/transactor.js';

const fills = 'insert into "fills" ("token", "quantity") values ($1, $2)';
const steps = 'insert into "steps" ("id", "subject", "run_at") values ($1, $2, $3)';

describe('combineInserts', () => {
  it('puts every insert but the last in a CTE and renumbers the parameters of those after the first', () => {
    const combined = combineInserts([CompiledQuery.raw(fills, ['f1', 3]), CompiledQuery.raw(steps, ['s1', 'f1', 'later']), CompiledQuery.raw(fills, ['f2', 4])]);
    expect(combined.sql).toBe(
      'with w0 as (insert into "fills" ("token", "quantity") values ($1, $2)), ' +
        'w1 as (insert into "steps" ("id", "subject", "run_at") values ($3, $4, $5)) ' +
        'insert into "fills" ("token", "quantity") values ($6, $7)',
    );
    expect(combined.parameters).toEqual(['f1', 3, 's1', 'f1', 'later', 'f2', 4]);
  });

  it('answers one insert as it is', () => {
    const one = CompiledQuery.raw(fills, ['f1', 3]);
    expect(combineInserts([one])).toBe(one);
  });

  it('gives the same parts the same SQL, with each call its own parameters', () => {
    const first = combineInserts([CompiledQuery.raw(fills, ['f1', 3]), CompiledQuery.raw(steps, ['s1', 'f1', 'later'])]);
    const second = combineInserts([CompiledQuery.raw(fills, ['f2', 5]), CompiledQuery.raw(steps, ['s2', 'f2', 'sooner'])]);
    expect(second.sql).toBe(first.sql);
    expect(second.parameters).toEqual(['f2', 5, 's2', 'f2', 'sooner']);
    // Another order is another statement.
    const swapped = combineInserts([CompiledQuery.raw(steps, ['s3', 'f3', 'later']), CompiledQuery.raw(fills, ['f3', 1])]);
    expect(swapped.sql).toBe('with w0 as (insert into "steps" ("id", "subject", "run_at") values ($1, $2, $3)) insert into "fills" ("token", "quantity") values ($4, $5)');
  });

  it('renumbers by each call’s parameter counts, not by those of the first call with the same texts', () => {
    const raw = 'insert into "notes" ("body") select unnest($1::text[])';
    const a = combineInserts([CompiledQuery.raw(raw, [['x']]), CompiledQuery.raw(fills, ['f1', 3])]);
    expect(a.sql).toContain('values ($2, $3)');
    // The same texts with a first part of two parameters (a text that numbers fewer than it takes is not Kysely's, but is still numbered right).
    const b = combineInserts([CompiledQuery.raw(raw, [['x'], 'extra']), CompiledQuery.raw(fills, ['f1', 3])]);
    expect(b.sql).toContain('values ($3, $4)');
    expect(b.parameters).toEqual([['x'], 'extra', 'f1', 3]);
  });

  it('stays right past the number of lists it keeps', () => {
    for (let i = 0; i < 1200; i++) {
      const table = `"t${i}"`;
      const combined = combineInserts([CompiledQuery.raw(`insert into ${table} ("a") values ($1)`, [i]), CompiledQuery.raw(fills, ['f', i])]);
      expect(combined.sql).toBe(`with w0 as (insert into ${table} ("a") values ($1)) insert into "fills" ("token", "quantity") values ($2, $3)`);
    }
    const again = combineInserts([CompiledQuery.raw(fills, ['f1', 3]), CompiledQuery.raw(steps, ['s1', 'f1', 'later'])]);
    expect(again.sql).toContain('values ($3, $4, $5)');
  });
});
