import { randomUUID } from 'node:crypto';
import type { components } from '@pharmacy/contract';
import type { Environment, Owner } from '../auth/principal.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { isUniqueViolation } from '../db/database.js';
import { ownerColumns, visibleTo } from '../db/ownership.js';
import { conflict, notFound } from '../errors.js';
import type { UnitsOfWork } from '../events/unit-of-work.js';
import { decodeCursor, encodeCursor, type CursorScope } from '../pagination.js';
import { nowIso } from '../tokens.js';
import type { DiagnosticCatalogue } from './catalogue.js';
import type { CatalogueIndex } from './catalogue-index.js';
import { milestoneEvent } from './diagnostic-events.js';
import { presentKits, presentOrder, presentResultV0, presentTests } from './diagnostic-order-presenter.js';
import type { Comparison, DiagnosticOrderRepository, DiagnosticOrderRow, FilteredColumn, OrderFilters } from './diagnostic-order-repository.js';
import { openOrderField, sealOrderField } from './diagnostic-sealed-fields.js';
import { isKitSerial } from './kit-serials.js';
import type { StoredResult } from './lab-results.js';
import { resolveOrder, type IntakeLookups, type OrderCreate, type OrderRegistration } from './order-intake.js';
import { acceptedSimulation } from '../events/sandbox-simulation.js';

type Schemas = components['schemas'];

/** Where the catalogue of an environment comes from (catalogue-service.ts). */
export interface CatalogueSource {
  of(environment: Environment): Promise<DiagnosticCatalogue>;
  index(environment: Environment): Promise<CatalogueIndex>;
}

/** The listing's query, as validated against the spec. */
export interface OrderQuery {
  limit?: number;
  test_id?: string;
  kit_id?: string;
  custom_data_1?: string;
  custom_data_2?: string;
  custom_data_3?: string;
  panels?: string[];
  pageToken?: string;
}

const ORDER_NOT_FOUND = 'Unable to find Order.';
const FILTERED: readonly FilteredColumn[] = ['test_id', 'kit_id', 'custom_data_1', 'custom_data_2', 'custom_data_3'];
const OPERATORS: Record<string, Comparison> = { lt: '<', lte: '<=', eq: '=', gte: '>=', gt: '>' };
const serialInUse = () => conflict('This kit is already registered.');

/**
 * At-home lab orders (seed 4.8): made for a kit the service ships or one the customer
 * holds, read, listed with the operator filters, their results and rejection read. What
 * happens to an order afterwards is its lifecycle's (diagnostic-lifecycle.ts).
 */
export class DiagnosticOrderService {
  constructor(
    private readonly orders: DiagnosticOrderRepository,
    private readonly catalogues: CatalogueSource,
    private readonly lookups: IntakeLookups,
    private readonly units: UnitsOfWork,
    private readonly secrets: SecretBox,
  ) {}

  async tests(environment: Environment) {
    return presentTests(await this.catalogues.of(environment));
  }

  /** The catalogue's kits; none answers 404, as the real platform's listing does. */
  async kits(environment: Environment) {
    const kits = presentKits(await this.catalogues.of(environment));
    if (kits.length === 0) throw notFound('Unable to find Kits.');
    return kits;
  }

  /** A new order of a kit the service ships (`ORDER_SUCCESS`; the serial comes when it ships). */
  create(owner: Owner, body: OrderCreate, requestId: string) {
    return this.make(owner, body, requestId, null);
  }

  /** A new order of a kit the customer holds, with its serial; a serial registered already answers 409. */
  register(owner: Owner, body: OrderRegistration, requestId: string) {
    return this.make(owner, body, requestId, body.kit_serial);
  }

  async get(owner: Owner, id: string): Promise<Schemas['DiagnosticOrder']> {
    return presentOrder(await this.visible(owner, id), this.secrets);
  }

  /**
   * The seed's kit registration: the customer holds or fulfils the kit of an order the
   * service has not shipped yet, so the order becomes one of a held kit (its next milestone
   * is shipped to lab). An order with a kit already (shipped, or registered) answers 409.
   */
  async registerKitSerial(owner: Owner, id: string, serial: string, requestId: string) {
    const order = await this.visible(owner, id);
    const hasKit = () => conflict('A kit is already registered for this order.');
    if (order.kit_serial) throw hasKit();
    const now = nowIso();
    await this.uniquely(() =>
      this.units.run(requestId, async ({ trx }) => {
        if (await this.orders.serialTaken(serial, trx)) throw serialInUse();
        if (!(await this.orders.registerSerial(trx, order.id, serial, now))) throw hasKit();
      }),
    );
    return presentOrder({ ...order, kit_serial: serial, registered: 1, updated_at: now }, this.secrets);
  }

  async list(owner: Owner, query: OrderQuery): Promise<Schemas['DiagnosticOrderList']> {
    const scope: CursorScope = { owner, list: 'diagnostic_orders' };
    const limit = query.limit ?? 20;
    const filters: OrderFilters = { compare: [], ...(query.panels ? { panels: query.panels } : {}) };
    for (const column of FILTERED) {
      const raw = query[column];
      const match = raw === undefined ? null : /^\$(lt|lte|eq|gte|gt):([\s\S]+)$/.exec(raw);
      if (!match) continue;
      const value = column === 'test_id' || column === 'kit_id' ? match[2]!.toLowerCase() : match[2]!;
      filters.compare.push({ column, op: OPERATORS[match[1]!]!, value });
    }
    const after = query.pageToken ? decodeCursor(scope, query.pageToken, 'pageToken') : undefined;
    const rows = await this.orders.list(owner, filters, limit + 1, after && { created_at: after.after, id: after.token });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      results: page.map((row) => presentOrder(row, this.secrets)),
      ...(rows.length > limit && last ? { nextPageToken: encodeCursor(scope, { after: last.created_at, token: last.id }) } : {}),
    };
  }

  /** The order's results: none until its status is `RESULTS_AVAILABLE`. */
  async results(owner: Owner, id: string): Promise<StoredResult[]> {
    const order = await this.visible(owner, id);
    if (order.status !== 'RESULTS_AVAILABLE' || !order.results_encrypted) return [];
    return openOrderField<StoredResult[]>(this.secrets, order.id, 'results_encrypted', order.results_encrypted);
  }

  async resultsV0(owner: Owner, id: string) {
    return (await this.results(owner, id)).map(presentResultV0);
  }

  async rejection(owner: Owner, id: string): Promise<Schemas['DiagnosticRejection']> {
    const order = await this.visible(owner, id);
    if (order.status !== 'REJECTED') throw notFound('The order was not rejected.');
    return {
      reason: order.rejection_reason!,
      rejected_at: order.rejected_at!,
      fixable: order.rejection_fixable === 1,
      ...(order.rejection_panel_name ? { panel_name: order.rejection_panel_name } : {}),
    };
  }

  /** Whether a serial can be registered for an order of the kit: well-formed and no order's yet. */
  async validateKitSerial(environment: Environment, kitId: string, serial: string): Promise<boolean> {
    if (!(await this.catalogues.index(environment)).kit(kitId)) throw notFound('Unable to find Kit.');
    return isKitSerial(serial) && !(await this.orders.serialTaken(serial));
  }

  private async make(owner: Owner, body: OrderCreate | OrderRegistration, requestId: string, serial: string | null) {
    const simulation = acceptedSimulation(owner, body.simulation);
    const resolved = await resolveOrder(owner, body, await this.catalogues.index(owner.environment), this.lookups);
    const id = randomUUID();
    const now = nowIso();
    const stringify = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));
    const order: DiagnosticOrderRow = {
      id,
      ...ownerColumns(owner),
      status: 'ORDER_SUCCESS',
      test_id: resolved.test.id,
      test_name: resolved.test.name,
      kit_id: resolved.kit.id,
      kit_sku: resolved.kit.sku,
      panels: JSON.stringify(resolved.panels),
      patient: JSON.stringify(resolved.patient),
      patient_token: resolved.patientToken,
      address: stringify(body.address),
      physician: stringify(body.physician),
      insurance_encrypted: resolved.insurance ? sealOrderField(this.secrets, id, 'insurance_encrypted', resolved.insurance) : null,
      insurance_token: resolved.insuranceToken,
      kit_serial: serial,
      shipment_carrier: null,
      shipment_tracking_number: null,
      return_carrier: null,
      return_tracking_number: null,
      accession_id: null,
      specimen: stringify('specimen' in body ? body.specimen : undefined),
      custom_data_1: body.custom_data_1 ?? null,
      custom_data_2: body.custom_data_2 ?? null,
      custom_data_3: body.custom_data_3 ?? null,
      media_ids: '[]',
      registered: serial === null ? 0 : 1,
      rejection_reason: null,
      rejection_fixable: null,
      rejection_panel_name: null,
      rejected_at: null,
      results_encrypted: null,
      resulted_at: null,
      created_at: now,
      updated_at: now,
    };
    const panels = resolved.panels.map((p) => ({ order_id: id, code: p.code.toLowerCase(), name_key: p.name.toLowerCase() }));
    await this.uniquely(() =>
      this.units.run(requestId, async (uow) => {
        if (!(await this.orders.insert(uow.trx, order, panels))) throw serialInUse();
        await uow.emit(owner, milestoneEvent(order));
        await uow.started(owner, 'diagnostic_order', id, simulation);
      }),
    );
    return presentOrder(order, this.secrets);
  }

  /** Runs a write whose kit serial may lose a race to another order's: that loss answers 409. */
  private async uniquely<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error)) throw serialInUse();
      throw error;
    }
  }

  private async visible(owner: Owner, id: string): Promise<DiagnosticOrderRow> {
    const order = await this.orders.find(id.toLowerCase());
    return visibleTo(order, owner, { notFound: () => notFound(ORDER_NOT_FOUND) });
  }
}
