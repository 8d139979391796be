/**
 * Short names for the column lists of the rows a statement writes, for the keys its compiled
 * SQL is kept under (`reuseCompiled`): the same name for the same table and columns in the
 * same order, and a name never given to another list. A key built from the columns joined
 * (a patient has 33) is a new long string at every insert, joined and hashed again: 0.9% of
 * a patient create's time.
 */

/** Each table's last column list and its name: the common case, a row of the shape before. */
const lastShapes = new Map<string, { columns: readonly string[]; name: string }>();
/** Names of the column lists seen, by table and columns (as JSON, so that no two lists read alike). */
const names = new Map<string, string>();
let named = 0;

export function shapeName(table: string, columns: readonly string[]): string {
  const last = lastShapes.get(table);
  if (last && sameColumns(last.columns, columns)) return last.name;
  const joined = JSON.stringify([table, columns]);
  let name = names.get(joined);
  if (name === undefined) {
    if (names.size >= 1000) names.clear();
    name = `${table}#${++named}`;
    names.set(joined, name);
  }
  lastShapes.set(table, { columns, name });
  return name;
}

/** Whether two column lists are the same columns in the same order. */
export function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
