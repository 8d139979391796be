import type { components } from '@pharmacy/contract';
import type { Generated, Selectable } from 'kysely';
import type { Owned } from '../db/ownership.js';

/** How each refill is submitted: the fill request body's payment, destination, shipping, survey and metadata. */
export type RefillSettings = Omit<components['schemas']['FillRequestCreate'], 'patient_token' | 'medications' | 'otc_products' | 'replacement_order'>;

/**
 * A prescription's auto-refill subscription. `cycle` counts the refills submitted; the
 * pending scheduled action of cycle `cycle + 1` says when the next one is due.
 */
export interface AutoRefillsTable extends Owned {
  /** The `auto_refill_id` (assigned by the database). */
  id: Generated<number>;
  prescription_token: string;
  patient_token: string;
  /** `active` or `canceled`. */
  status: 'active' | 'canceled';
  /** JSON of RefillSettings. */
  settings: string;
  shipping_method: string;
  metadata: string | null;
  /** JSON of the `patient_consent.auto_refill` that subscribed it, when consent did. */
  consent: string | null;
  interval_days: number;
  cycle: number;
  last_fill_request_token: string | null;
  cancel_reason: string | null;
  created_at: string;
  updated_at: string;
  canceled_at: string | null;
}

declare module '../db/database.js' {
  interface Database {
    auto_refills: AutoRefillsTable;
  }
}

export type AutoRefillRow = Selectable<AutoRefillsTable>;
