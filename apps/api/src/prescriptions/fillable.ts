import type { PrescriptionsTable } from './prescription-tables.js';
import { now as clockNow } from '../clock.js';

/**
 * Why the prescription cannot be filled now (words for a validation message), or null when
 * it can: it is active (not on hold, transferred out or inactive), not expired, has
 * quantity left and a fill left. `number_of_refills_allowed` N allows N+1 fills: the first
 * (never filled) fill consumes no refill, every later fill consumes one of `refills_remaining`.
 */
export function unfillableReason(rx: PrescriptionsTable, now = clockNow()): string | null {
  if (rx.status === 'transferred') return 'was transferred out';
  if (rx.status === 'on_hold') return 'is on hold';
  if (rx.status !== 'active') return 'is not active';
  if (rx.expiration_date_utc && new Date(rx.expiration_date_utc) <= now) return 'has expired';
  if (rx.quantity_remaining <= 0) return 'has no quantity remaining';
  if (rx.date_filled_utc !== null && rx.refills_remaining <= 0) return 'has no refills remaining';
  return null;
}

/** Whether the prescription can be filled now (the `fillable` of seed 2.2 and 2.3). */
export function isFillable(rx: PrescriptionsTable, now = clockNow()): boolean {
  return unfillableReason(rx, now) === null;
}

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
 * The next fill of a prescription, or null when it is not fillable. The first fill (never
 * filled before) consumes no refill, each later one consumes one; a fill dispenses the
 * prescribed quantity, or what remains when that is less.
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

const DAY_MS = 86_400_000;

/**
 * The earliest instant a refill of the prescription is allowed: its last fill date plus
 * its days supply, less the early-refill `tolerance` (the share of the supply that may
 * remain: 0.25 allows a 30-day fill to be refilled from day 22.5). Null when nothing limits
 * it: the prescription was never filled, or the tolerance is 1.
 */
export function earliestRefill(rx: PrescriptionsTable, tolerance: number): Date | null {
  if (!rx.last_filled_date || tolerance >= 1) return null;
  const last = Date.parse(rx.last_filled_date);
  if (Number.isNaN(last)) return null;
  return new Date(last + daysSupplyOf(rx) * (1 - tolerance) * DAY_MS);
}
