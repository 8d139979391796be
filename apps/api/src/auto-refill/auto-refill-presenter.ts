import type { components } from '@pharmacy/contract';
import { nowIso } from '../tokens.js';
import type { AutoRefillPage, AutoRefillRecord } from './auto-refill-service.js';
import type { AutoRefillRow, RefillSettings } from './auto-refill-tables.js';

type Schemas = components['schemas'];

/** Every answer of the auto-refill operations is wrapped as the real platform wraps it. */
function envelope<Data>(data: Data): { code: 200; err: false; data: Data } {
  return { code: 200, err: false, data };
}

function medication({ row, rx, pending }: AutoRefillRecord): Schemas['AutoRefillMedication'] {
  return {
    auto_refill_id: row.id,
    auto_refill_date: row.status === 'active' && pending ? pending.submit_on : null,
    auto_reminder: false,
    refills_remaining: rx?.refills_remaining ?? 0,
    prescription_token: row.prescription_token,
    patient_token: row.patient_token,
    status: row.status,
    interval_days: row.interval_days,
    shipping_method: row.shipping_method as Schemas['ShippingMethod'],
    metadata: row.metadata,
    last_fill_request_id: row.last_fill_request_token,
    created_at: row.created_at,
    canceled_at: row.canceled_at,
    cancel_reason: row.cancel_reason,
  };
}

export function presentAutoRefill(record: AutoRefillRecord): Schemas['AutoRefillRecord'] {
  const settings = JSON.parse(record.row.settings) as RefillSettings;
  return envelope({
    timestamp: nowIso(),
    status: 'successful' as const,
    details: {
      auto_refill_medications: medication(record),
      scheduled_fill_address: {
        name: settings.address_to_name,
        street1: settings.address_to_street1,
        street2: settings.address_to_street2 ?? null,
        city: settings.address_to_city,
        state: settings.address_to_state,
        zip: settings.address_to_zip,
        phone: settings.address_to_phone,
        email: settings.address_to_email,
        country: settings.address_to_country ?? 'US',
      },
      scheduled_fill_survey: settings.patient_survey ?? {},
    },
  });
}

export function presentAutoRefillCreated(record: AutoRefillRecord): Schemas['AutoRefillCreated'] {
  return envelope({ timestamp: nowIso(), status: 'successful' as const, details: { auto_refill_medications: medication(record) } });
}

export function presentAutoRefillDone(record?: AutoRefillRecord): Schemas['AutoRefillDone'] {
  return envelope({ timestamp: nowIso(), status: 'successful' as const, ...(record ? { details: { auto_refill_medications: medication(record) } } : {}) });
}

export function presentAutoRefillList(page: AutoRefillPage): Schemas['AutoRefillList'] {
  const item = (row: AutoRefillRow): Schemas['AutoRefillListItem'] => ({ id: row.id, prescription_token: row.prescription_token, patient_token: row.patient_token, status: row.status });
  return envelope({ timestamp: nowIso(), status: 'successful' as const, details: { auto_refill_subscriptions: page.rows.map(item), nextPageToken: page.nextPageToken, total: page.total } });
}
