import { describe, expect, it } from 'vitest';
import { sameColumns, shapeName } from '../src/db/row-shapes.js';

describe('names of row shapes (the keys of compiled inserts)', () => {
  it('names the same table and columns alike, however the list was made', () => {
    const name = shapeName('rs_patients', ['token', 'first_name', 'dob']);
    expect(shapeName('rs_patients', ['token', 'first_name', 'dob'])).toBe(name);
    shapeName('rs_patients', ['token']); // another shape in between
    expect(shapeName('rs_patients', Object.keys({ token: 1, first_name: 2, dob: 3 }))).toBe(name);
  });

  it('tells apart the order of the columns, their number and the table', () => {
    const names = [
      shapeName('rs_orders', ['a', 'b']),
      shapeName('rs_orders', ['b', 'a']),
      shapeName('rs_orders', ['a', 'b', 'c']),
      shapeName('rs_orders', ['a']),
      shapeName('rs_other', ['a', 'b']),
      shapeName('rs_orders', ['a,b']),
    ];
    expect(new Set(names).size).toBe(names.length);
  });

  it('never gives a name to another list, even after forgetting the names it gave', () => {
    const first = shapeName('rs_many', ['c0']);
    const given = new Map<string, string>([[first, 'c0']]);
    for (let i = 1; i < 2500; i++) {
      const name = shapeName('rs_many', [`c${i}`]);
      expect(given.get(name) ?? `c${i}`).toBe(`c${i}`);
      given.set(name, `c${i}`);
    }
    // Forgotten (more than its memory holds since): named anew, not as another list.
    const again = shapeName('rs_many', ['c0']);
    expect(given.get(again) ?? 'c0').toBe('c0');
  });

  it('compares column lists member by member', () => {
    expect(sameColumns(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(sameColumns(['a', 'b'], ['b', 'a'])).toBe(false);
    expect(sameColumns(['a'], ['a', 'b'])).toBe(false);
    expect(sameColumns([], [])).toBe(true);
  });
});
