import type { SecretBox } from '../crypto/secret-box.js';
import { contextOf, type SealedColumns } from '../crypto/sealed-columns.js';

/**
 * The lab order fields stored sealed: the insurance (its member id identifies the patient
 * to the payer) and the results (what the lab found). Nothing compares them; both are read
 * back whole. The patient's names and date of birth stay in clear, as in `patients`.
 */
export const diagnosticOrderSealedColumns: SealedColumns = { table: 'diagnostic_orders', key: ['id'], columns: ['insurance_encrypted', 'results_encrypted'] };

type SealedColumn = 'insurance_encrypted' | 'results_encrypted';

/** Seals a JSON value into a column of the order `id`. */
export function sealOrderField(box: SecretBox, id: string, column: SealedColumn, value: unknown): string {
  return box.seal(JSON.stringify(value), contextOf(diagnosticOrderSealedColumns, column, { id }));
}

/** Opens a JSON value of a column of the order `id`. */
export function openOrderField<T>(box: SecretBox, id: string, column: SealedColumn, sealed: string): T {
  return JSON.parse(box.open(sealed, contextOf(diagnosticOrderSealedColumns, column, { id }))) as T;
}
