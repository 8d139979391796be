import { updatedOneRow, type Db } from '../db/database.js';
import type { FillRequestMedicationRow } from './fill-request-repository.js';

/** What a cancellation names an item of a fill request by. */
export type CanceledItemType = 'medication' | 'otc_product';

/** The items of a fill request canceled so far: medications by prescription token, OTC products by SKU. */
export interface CanceledItems {
  medications: Set<string>;
  otcProducts: Set<string>;
}

/**
 * The statuses a fill request can be canceled from: not processed yet (`pending`,
 * `triage`), or held as too soon (`scheduled`, nothing dispensed).
 */
export const CANCELLABLE = ['pending', 'triage', 'scheduled'];

/**
 * The items of a fill request canceled so far, in the caller's transaction (the fill
 * lifecycle reads them to dispense only the rest).
 */
export async function canceledItemsOf(trx: Db, fillRequestToken: string): Promise<CanceledItems> {
  const rows = await trx
    .selectFrom('fill_request_cancellations')
    .select(['item_type', 'item'])
    .where('fill_request_token', '=', fillRequestToken)
    .execute();
  const items: CanceledItems = { medications: new Set(), otcProducts: new Set() };
  for (const row of rows) (row.item_type === 'medication' ? items.medications : items.otcProducts).add(row.item);
  return items;
}

/** SQL of fill request cancellations, and of the fills they give back to the prescriptions. */
export class FillCancellationRepository {
  /**
   * Takes a fill request for a cancellation while it can still be canceled (not dispensed,
   * not canceled): a conditional update that holds the request's row until the unit of work
   * ends, so concurrent cancellations and dispenses of it take turns (the later one finds it
   * changed). False when it can no longer be canceled.
   */
  async claim(token: string, at: string, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('fill_requests')
      .set({ updated_at: at })
      .where('token', '=', token)
      .where('status', 'in', CANCELLABLE)
      .where('order_token', 'is', null)
      .executeTakeFirst();
    return updatedOneRow(result);
  }

  /** The request canceled (none of its items is left); false when it could no longer be canceled. */
  async markCanceled(token: string, at: string, trx: Db): Promise<boolean> {
    const result = await trx
      .updateTable('fill_requests')
      .set({ status: 'canceled', updated_at: at })
      .where('token', '=', token)
      .where('status', 'in', CANCELLABLE)
      .where('order_token', 'is', null)
      .executeTakeFirst();
    return updatedOneRow(result);
  }

  async record(fillRequestToken: string, items: { item_type: CanceledItemType; item: string }[], at: string, trx: Db): Promise<void> {
    if (!items.length) return;
    await trx
      .insertInto('fill_request_cancellations')
      .values(items.map((i) => ({ fill_request_token: fillRequestToken, item_type: i.item_type, item: i.item, canceled_at: at })))
      .execute();
  }

  /**
   * Gives a canceled fill back to its prescription: the quantity it dispensed, and the refill
   * it consumed (a fill numbered above 0). The counters are updated relative to their current
   * values, first, so the prescription's row is held from then on and a concurrent fill of
   * it waits, then finds it changed and reads it again.
   *
   * The first fill (number 0) consumed no refill but set `date_filled_utc`. When no other
   * fill of the prescription still stands, the prescription is unfilled again
   * (`date_filled_utc` null). Otherwise the earliest one standing becomes the first fill:
   * numbered 0, its date the fill date, and the refill it consumed comes back (so canceling
   * it later gives back no refill). `last_filled_date`, when this fill set it, goes back to
   * the latest standing fill's date (null when none).
   */
  async giveBack(fill: FillRequestMedicationRow, filledAt: string, trx: Db): Promise<void> {
    await trx
      .updateTable('prescriptions')
      .set((eb) => ({
        quantity_remaining: eb('quantity_remaining', '+', fill.quantity),
        ...(fill.fill_number > 0 ? { refills_remaining: eb('refills_remaining', '+', 1) } : {}),
      }))
      .where('token', '=', fill.prescription_token)
      .execute();
    const rx = await trx
      .selectFrom('prescriptions')
      .select(['last_filled_date', 'patient_token'])
      .where('token', '=', fill.prescription_token)
      .executeTakeFirst();
    if (!rx) return;
    const standing = await this.standingFills(fill.prescription_token, rx.patient_token, fill.fill_request_token, trx);
    const first = standing[0];
    if (fill.fill_number === 0) {
      await trx
        .updateTable('prescriptions')
        .set((eb) => ({
          date_filled_utc: first?.created_at ?? null,
          ...(first && first.fill_number > 0 ? { refills_remaining: eb('refills_remaining', '+', 1) } : {}),
        }))
        .where('token', '=', fill.prescription_token)
        .execute();
      if (first && first.fill_number > 0) {
        await trx
          .updateTable('fill_request_medications')
          .set({ fill_number: 0 })
          .where('fill_request_token', '=', first.fill_request_token)
          .where('position', '=', first.position)
          .execute();
      }
    }
    if (rx.last_filled_date === filledAt) {
      await trx
        .updateTable('prescriptions')
        .set({ last_filled_date: standing[standing.length - 1]?.created_at ?? null })
        .where('token', '=', fill.prescription_token)
        .execute();
    }
  }

  /**
   * The other fills of a prescription that still stand, earliest first, with their
   * request's date: those of other requests that filled something (not held, not canceled)
   * whose medication was not canceled. Found among the requests of the prescription's
   * patient (migration 025: no index of fills by prescription).
   */
  private async standingFills(prescriptionToken: string, patientToken: string, exceptRequest: string, trx: Db) {
    return trx
      .selectFrom('fill_requests as r')
      .innerJoin('fill_request_medications as m', 'm.fill_request_token', 'r.token')
      .select(['m.fill_request_token', 'm.position', 'm.fill_number', 'r.created_at'])
      .where('r.patient_token', '=', patientToken)
      .where('m.prescription_token', '=', prescriptionToken)
      .where('m.fill_request_token', '!=', exceptRequest)
      .where('r.status', 'not in', ['scheduled', 'canceled'])
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('fill_request_cancellations as c')
              .select('c.item')
              .whereRef('c.fill_request_token', '=', 'm.fill_request_token')
              .where('c.item_type', '=', 'medication')
              .whereRef('c.item', '=', 'm.prescription_token'),
          ),
        ),
      )
      .orderBy('r.created_at')
      .orderBy('m.fill_number')
      .execute();
  }
}
