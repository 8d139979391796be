import type { Environment } from '../auth/principal.js';

/** Where a lab order stands (the spec's `DiagnosticOrderStatus`). */
export type DiagnosticOrderStatus =
  | 'ORDER_SUCCESS'
  | 'SHIPPED'
  | 'IN_TRANSIT'
  | 'DELIVERED_TO_PATIENT'
  | 'SHIPPED_TO_LAB'
  | 'IN_TRANSIT_TO_LAB'
  | 'DELIVERED_TO_LAB'
  | 'LAB_ACCESSED_KIT'
  | 'RESULTS_AVAILABLE'
  | 'REJECTED';

/**
 * A lab order. What it was ordered with is kept as it stood then (JSON snapshots of the
 * test's panels, the patient, the shipping address, the physician, the specimen), so a
 * later catalogue import or patient update never changes a past order. Insurance and
 * results are sealed (diagnostic-sealed-fields.ts).
 */
export interface DiagnosticOrdersTable {
  /** A version-4 UUID, lower-case. */
  id: string;
  customer_id: string;
  environment: Environment;
  status: DiagnosticOrderStatus;
  test_id: string;
  test_name: string;
  kit_id: string;
  kit_sku: string;
  /** JSON `[{code, name, description}]`: the panels the lab runs. */
  panels: string;
  /** JSON of the patient (`DiagnosticOrderPatient` with `dob` as `YYYYMMDD`). */
  patient: string;
  patient_token: string | null;
  /** JSON `DiagnosticShippingAddress`, null for a registered kit sent without one. */
  address: string | null;
  physician: string | null;
  insurance_encrypted: string | null;
  insurance_token: string | null;
  /** Set when the kit ships, or given by the customer (register, kit_serial); unique over every order. */
  kit_serial: string | null;
  shipment_carrier: string | null;
  shipment_tracking_number: string | null;
  return_carrier: string | null;
  return_tracking_number: string | null;
  accession_id: string | null;
  specimen: string | null;
  custom_data_1: string | null;
  custom_data_2: string | null;
  custom_data_3: string | null;
  /** JSON array of media ids. */
  media_ids: string;
  /** 1 for an order of a kit the customer holds (register): no shipment to the patient. */
  registered: 0 | 1;
  rejection_reason: string | null;
  rejection_fixable: 0 | 1 | null;
  rejection_panel_name: string | null;
  rejected_at: string | null;
  /** Sealed JSON of the results (diagnostic-results.ts), once available. */
  results_encrypted: string | null;
  resulted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The panels an order runs, by lower-cased code and name: what the listing's `panels` filter matches, in any case. */
export interface DiagnosticOrderPanelsTable {
  order_id: string;
  code: string;
  name_key: string;
}

declare module '../db/database.js' {
  interface Database {
    diagnostic_orders: DiagnosticOrdersTable;
    diagnostic_order_panels: DiagnosticOrderPanelsTable;
  }
}
