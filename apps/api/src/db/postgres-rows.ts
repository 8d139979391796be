import type PgModule from 'pg';

type FieldDef = PgModule.FieldDef;
type Row = Record<string, unknown>;
type ParseRow = (values: readonly (string | null)[]) => Row;

/** The rows of one named statement: the fields the server described, and a parser compiled for them. */
export interface RowShape {
  readonly fields: readonly FieldDef[];
  readonly parse: ParseRow;
}

/** The parts of pg's Query (pg 8: lib/query.js, lib/result.js) that `KeptRowsQuery` works with. */
interface QueryInternals {
  name?: string;
  callback?: unknown;
  _rowMode?: string;
  _accumulateRows: boolean;
  _result: { fields: readonly FieldDef[]; parseRow: ParseRow; _types?: { getTypeParser(oid: number, format: string): (text: string) => unknown } };
  _checkForMultirow(): void;
  listeners(event: string): unknown[];
}

export type KeptRowsQueryClass = new (name: string, text: string, values: readonly unknown[], shapes: Map<string, RowShape>) => PgModule.Query;

/**
 * pg's Query for a named statement whose rows are parsed by a function compiled once per
 * statement. pg rebuilds a row template from the RowDescription of every answer (a null-
 * prototype object, spread for each row): for a `select *` of 30 columns that was an eighth
 * of an authenticated read's CPU. A named statement's description only changes with its
 * table (a migration; postgres-statements.ts then renames every statement), and is checked
 * against the kept one, field by field, on every answer. Rows keep pg's shape: an object by
 * column name (a repeated name keeps its last value), each text value through the type
 * parser pg would use. A description pg's own parsing must handle (binary values, rows as
 * arrays, a column named `__proto__`) is left to it.
 */
export function keptRowsQuery(pg: typeof PgModule): KeptRowsQueryClass {
  const Query = pg.Query as unknown as new (text: string, values: readonly unknown[]) => PgModule.Query;
  const describe = (pg.Query.prototype as unknown as { handleRowDescription(msg: { fields: FieldDef[] }): void }).handleRowDescription;
  return class KeptRowsQuery extends Query {
    constructor(
      name: string,
      text: string,
      values: readonly unknown[],
      private readonly shapes: Map<string, RowShape>,
    ) {
      super(text, values);
      (this as unknown as QueryInternals).name = name;
    }

    handleRowDescription(msg: { fields: FieldDef[] }): void {
      const query = this as unknown as QueryInternals;
      const name = query.name!;
      let shape = this.shapes.get(name);
      if (!shape || !sameFields(shape.fields, msg.fields)) {
        shape = query._rowMode === undefined && query._result._types ? rowShape(msg.fields, query._result._types) : undefined;
        if (!shape) return describe.call(this, msg);
        this.shapes.set(name, shape);
      }
      query._checkForMultirow();
      query._result.fields = msg.fields;
      query._result.parseRow = shape.parse;
      query._accumulateRows = Boolean(query.callback) || query.listeners('row').length === 0;
    }
  } as unknown as KeptRowsQueryClass;
}

function sameFields(kept: readonly FieldDef[], fields: readonly FieldDef[]): boolean {
  if (kept.length !== fields.length) return false;
  for (let i = 0; i < fields.length; i++) {
    const a = kept[i]!;
    const b = fields[i]!;
    if (a.name !== b.name || a.dataTypeID !== b.dataTypeID || a.format !== b.format) return false;
  }
  return true;
}

/** The parser of rows of these fields, or undefined when pg's own must parse them. */
function rowShape(fields: readonly FieldDef[], types: { getTypeParser(oid: number, format: string): (text: string) => unknown }): RowShape | undefined {
  if (fields.some((field) => (field.format && field.format !== 'text') || field.name === '__proto__')) return undefined;
  const parsers = fields.map((field) => types.getTypeParser(field.dataTypeID, 'text'));
  // The names are written as JSON string literals, so no name can be code.
  const body = fields.map((field, i) => `${JSON.stringify(field.name)}: v[${i}] === null ? null : p[${i}](v[${i}])`).join(', ');
  const parse = new Function('p', `return function parseRow(v) { return { ${body} }; };`)(parsers) as ParseRow;
  return { fields: fields.map((field) => ({ ...field })), parse };
}
