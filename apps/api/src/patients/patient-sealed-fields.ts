import type { SecretBox } from '../crypto/secret-box.js';
import { contextOf, type SealedColumns } from '../crypto/sealed-columns.js';
import type { PatientsTable } from './patient-tables.js';

/**
 * The patient fields stored sealed, and their columns: identifiers that let anyone holding
 * them act as the patient (SSN, its serial, the Medicare id) and the URL of an image of their
 * ID. Names, date of birth and address stay in clear: they match patients and are read back.
 */
const SEALED = {
  ssn: 'ssn_encrypted',
  ssn_serial: 'ssn_serial_encrypted',
  mbi: 'mbi_encrypted',
  id_image: 'id_image_encrypted',
} as const;

type SealedField = keyof typeof SEALED;
type SealedColumn = (typeof SEALED)[SealedField];

/** The sealed columns of `patients`, for re-encryption (`pnpm admin reencrypt`). */
export const patientSealedColumns: SealedColumns = { table: 'patients', key: ['token'], columns: Object.values(SEALED) };

type SealedFields = Partial<Record<SealedField, string | undefined>>;
type SealedValues = Partial<Pick<PatientsTable, SealedColumn>>;

/** Seals each field given, bound to the patient's token; a field not given is `absent` (left out when undefined). */
function seal(box: SecretBox, token: string, fields: SealedFields, absent: null | undefined): SealedValues {
  const sealed: SealedValues = {};
  for (const [field, column] of Object.entries(SEALED) as Array<[SealedField, SealedColumn]>) {
    const value = fields[field];
    if (value !== undefined) sealed[column] = box.seal(value, contextOf(patientSealedColumns, column, { token }));
    else if (absent === null) sealed[column] = null;
  }
  return sealed;
}

/** Every sealed column of a new patient: the fields given sealed, the others null. */
export function sealNewPatientFields(box: SecretBox, token: string, fields: SealedFields): Pick<PatientsTable, SealedColumn> {
  return seal(box, token, fields, null) as Pick<PatientsTable, SealedColumn>;
}

/** The sealed columns of the fields an update gives (the others are left as they are). */
export function sealPatientChanges(box: SecretBox, token: string, fields: SealedFields): SealedValues {
  return seal(box, token, fields, undefined);
}

/** The patient's MBI in clear (the only sealed field a read answers). */
export function openMbi(box: SecretBox, patient: Pick<PatientsTable, 'token' | 'mbi_encrypted'>): string | null {
  return patient.mbi_encrypted === null ? null : box.open(patient.mbi_encrypted, contextOf(patientSealedColumns, 'mbi_encrypted', patient));
}
