import { sql, type Expression } from 'kysely';
import type { Owner } from '../auth/principal.js';
import { updatedOneRow, type Db, type Dialect } from '../db/database.js';
import { whereOwned } from '../db/ownership.js';
import { shapeName } from '../db/row-shapes.js';
import { executeInserts, insertRows, reuseCompiled, rowByKey } from '../db/transactor.js';
import type { DiagnosticOrderPanelsTable, DiagnosticOrdersTable, DiagnosticOrderStatus } from './diagnostic-order-tables.js';

export type DiagnosticOrderRow = DiagnosticOrdersTable;

/** A comparison of the listing's filters (`$gte:` ...), as SQL operators. */
export type Comparison = '<' | '<=' | '=' | '>=' | '>';

/** The columns the listing filters by operator. */
export type FilteredColumn = 'test_id' | 'kit_id' | 'custom_data_1' | 'custom_data_2' | 'custom_data_3';

export interface OrderFilters {
  compare: { column: FilteredColumn; op: Comparison; value: string }[];
  /** Panels by code, or by lower-cased name: an order matches when it runs any of them. */
  panels?: string[];
}

/** The lab orders' SQL. */
export class DiagnosticOrderRepository {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Inserts an order with its panels; answers false, inserting nothing, when its kit serial
   * is already registered to an order (the unique index decides, so two at once cannot both pass).
   * An order without a serial cannot conflict: its inserts are sent as the unit's other
   * inserts are (`executeInserts`: on PostgreSQL with its next statement, no answer awaited).
   */
  async insert(trx: Db, order: DiagnosticOrderRow, panels: DiagnosticOrderPanelsTable[]): Promise<boolean> {
    const panelRows = panels.length ? [insertRows(trx, 'diagnostic_order_panels', panels)] : [];
    if (order.kit_serial === null) {
      await executeInserts(trx, [insertRows(trx, 'diagnostic_orders', [order]), ...panelRows]);
      return true;
    }
    // Compiled once per shape of the order's columns (reuseCompiled), as the hot inserts are.
    const columns = Object.keys(order);
    const insert = reuseCompiled(trx, `insertOrder:${shapeName('diagnostic_orders', columns)}`, columns.map((column) => order[column as keyof DiagnosticOrderRow]), () =>
      trx
        .insertInto('diagnostic_orders')
        .values(order)
        .onConflict((oc) => oc.column('kit_serial').doNothing())
        .returning('id'),
    );
    if ((await trx.executeQuery(insert)).rows.length === 0) return false;
    await executeInserts(trx, panelRows);
    return true;
  }

  /** The order of this id in any customer's records (ownership is the service's concern). */
  async find(id: string, trx: Db = this.db): Promise<DiagnosticOrderRow | undefined> {
    return rowByKey(trx, 'diagnostic_orders', 'id', id);
  }

  /** Whether any order holds this kit serial. */
  async serialTaken(serial: string, trx: Db = this.db): Promise<boolean> {
    return (await trx.selectFrom('diagnostic_orders').select('id').where('kit_serial', '=', serial).executeTakeFirst()) !== undefined;
  }

  /**
   * Moves an order on: sets `changes` only while its status is one of `from` (a lifecycle
   * action taken twice, or on an order that moved on meanwhile, changes nothing). A kit
   * serial another order holds already fails the unique index: the caller checks first.
   */
  async advance(trx: Db, id: string, from: readonly DiagnosticOrderStatus[], changes: Partial<DiagnosticOrderRow>): Promise<boolean> {
    const result = await trx.updateTable('diagnostic_orders').set(changes).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
    return updatedOneRow(result);
  }

  /**
   * Registers the serial of a kit the customer holds for an order not shipped yet (no serial,
   * still at order success): the order becomes one of a held kit. False when it is not such an order.
   */
  async registerSerial(trx: Db, id: string, serial: string, at: string): Promise<boolean> {
    const result = await trx
      .updateTable('diagnostic_orders')
      .set({ kit_serial: serial, registered: 1, updated_at: at })
      .where('id', '=', id)
      .where('kit_serial', 'is', null)
      .where('status', '=', 'ORDER_SUCCESS')
      .executeTakeFirst();
    return updatedOneRow(result);
  }

  /** One page of the owner's orders, newest first, after the cursor's `(created_at, id)`. */
  async list(owner: Owner, filters: OrderFilters, limit: number, after?: { created_at: string; id: string }): Promise<DiagnosticOrderRow[]> {
    let query = this.db.selectFrom('diagnostic_orders').selectAll().where(whereOwned(owner));
    for (const { column, op, value } of filters.compare) query = query.where(this.asText(column), op, value);
    if (filters.panels?.length) {
      // Codes and names are stored lower-cased: either matches in any case.
      const names = filters.panels.map((p) => p.toLowerCase());
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom('diagnostic_order_panels as p')
            .select('p.order_id')
            .whereRef('p.order_id', '=', 'diagnostic_orders.id')
            .where((inner) => inner.or([inner('p.code', 'in', names), inner('p.name_key', 'in', names)])),
        ),
      );
    }
    if (after) {
      query = query.where((eb) =>
        eb.or([eb('created_at', '<', after.created_at), eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)])]),
      );
    }
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /** A column compared code point by code point on both databases (PostgreSQL's "C" collation; SQLite's BINARY is that already). */
  private asText(column: FilteredColumn): Expression<string> {
    return this.dialect === 'postgres' ? sql<string>`${sql.ref(column)} collate "C"` : (sql.ref(column) as Expression<string>);
  }
}
