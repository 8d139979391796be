import type { PrescriptionsTable } from '../db/tables.js';
import { isFillable } from '../prescriptions/prescription-presenter.js';

/** What one fill of a prescription dispenses, and what the prescription holds after it. */
export interface Fill {
  fill_number: number;
  quantity: number;
  days_supply: number;
  refills_remaining: number;
  quantity_remaining: number;
  date_filled_utc: string;
  last_filled_date: string;
}

/** Days of supply as a count the copay claim can be priced for (1 to 365; 30 when unknown). */
export function daysSupplyOf(rx: PrescriptionsTable): number {
  const days = Number.parseInt(rx.days_supply ?? '', 10);
  return Number.isFinite(days) && days >= 1 ? Math.min(days, 365) : 30;
}

/**
 * The next fill of a prescription, or null when it is not fillable. Pharmacy semantics:
 * N refills allowed means N+1 fills; the first fill (never filled before) consumes no
 * refill, each later one consumes one; a fill dispenses the prescribed quantity, or what
 * remains when that is less.
 */
export function nextFill(rx: PrescriptionsTable, now: Date): Fill | null {
  if (!isFillable(rx, now)) return null;
  const first = rx.date_filled_utc === null;
  const prescribed = rx.prescribed_quantity && rx.prescribed_quantity > 0 ? rx.prescribed_quantity : rx.quantity_remaining;
  const quantity = Math.min(prescribed, rx.quantity_remaining);
  const refills = first ? rx.refills_remaining : rx.refills_remaining - 1;
  const at = now.toISOString();
  return {
    fill_number: first ? 0 : Math.max(1, rx.number_of_refills_allowed - refills),
    quantity,
    days_supply: daysSupplyOf(rx),
    refills_remaining: refills,
    quantity_remaining: rx.quantity_remaining - quantity,
    date_filled_utc: rx.date_filled_utc ?? at,
    last_filled_date: at,
  };
}
