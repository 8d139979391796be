import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import { HttpError, validationFailed, type ValidationErrorItem } from '../errors.js';
import type { InsuranceService } from '../insurances/insurance-service.js';
import type { PatientService } from '../patients/patient-service.js';
import type { CatalogueKit, CataloguePanel, CatalogueTest } from './catalogue.js';
import type { CatalogueIndex } from './catalogue-index.js';

type Schemas = components['schemas'];
export type OrderCreate = Schemas['DiagnosticOrderCreate'];
export type OrderRegistration = Schemas['DiagnosticOrderRegistration'];
export type InsuranceInput = Schemas['DiagnosticInsurance'];

/** The patient of an order as kept with it: the inline patient's fields, `dob` as `YYYYMMDD` (presented as `DiagnosticOrderPatient`). */
export type OrderPatient = Schemas['DiagnosticPatient'];

/** What an order body resolves to once every rule of seed 4.8 holds. */
export interface ResolvedOrder {
  test: CatalogueTest;
  kit: CatalogueKit;
  /** The panels to run, with the results each reports (kept with the order). */
  panels: CataloguePanel[];
  patient: OrderPatient;
  patientToken: string | null;
  /** The insurance as kept with the order (sealed), and the record it came from. */
  insurance: Partial<InsuranceInput> | null;
  insuranceToken: string | null;
}

/** The lookups the rules need: the owner's patients and insurance records. */
export interface IntakeLookups {
  patients: Pick<PatientService, 'get'>;
  insurances: Pick<InsuranceService, 'get'>;
}

/** Omits the properties whose value is undefined or null, so an absent field is left out of the answer. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as T;
}

/** Undefined when the lookup refuses the token (unknown, another owner's): the caller reports it on its field. */
async function owned<T>(lookup: () => Promise<T>): Promise<T | undefined> {
  try {
    return await lookup();
  } catch (error) {
    if (error instanceof HttpError && error.statusCode < 500) return undefined;
    throw error;
  }
}

/**
 * The rules of an order body (creation and registration) that the schema cannot express,
 * all checked at once, each failure a `400` keyed by its field: the test, kit and panels
 * the catalogue knows (`CatalogueIndex.select`); `physician` when the test requires
 * approval; the patient by token or inline (one of them); the insurance by token or inline
 * (at most one); tokens of the owner's own records.
 */
export async function resolveOrder(owner: Owner, body: OrderCreate | OrderRegistration, catalogue: CatalogueIndex, lookups: IntakeLookups): Promise<ResolvedOrder> {
  const errors: ValidationErrorItem[] = [];
  const chosen = catalogue.select({ test_id: body.test_id, kit_id: body.kit_id, panels: body.panels });
  if (chosen.problems) errors.push(...chosen.problems);
  const test = chosen.selection?.test ?? catalogue.test(body.test_id);
  if (test?.requires_physician_approval && !body.physician) errors.push({ key: 'physician', message: 'is required' });

  let patient: OrderPatient | undefined;
  if (body.patient && body.patient_token) errors.push({ key: 'patient', message: 'is not allowed with patient_token' });
  else if (body.patient) patient = defined({ ...body.patient });
  else if (!body.patient_token) errors.push({ key: 'patient_token', message: 'is required' });
  else {
    const record = await owned(() => lookups.patients.get(owner, body.patient_token!));
    if (!record) errors.push({ key: 'patient_token', message: 'is not a known patient' });
    else {
      const { first_name, last_name, dob, gender, email, phone, street1, street2, city, state, zip } = record;
      patient = defined({ first_name, last_name, dob, gender: gender as OrderPatient['gender'], email, phone, street1, street2, city, state, zip }) as OrderPatient;
    }
  }

  let insurance: Partial<InsuranceInput> | null = body.insurance ?? null;
  if (body.insurance && body.insurance_token) errors.push({ key: 'insurance', message: 'is not allowed with insurance_token' });
  else if (body.insurance_token) {
    const record = await owned(() => lookups.insurances.get(owner, body.insurance_token!));
    if (!record) errors.push({ key: 'insurance_token', message: 'is not a known insurance' });
    else insurance = defined({ group_id: record.rx_group ?? undefined, member_id: record.cardholder_id, bin: record.rx_bin });
  }

  if (errors.length || !chosen.selection || !patient) throw validationFailed(errors);
  const { kit, panels } = chosen.selection;
  return { test: chosen.selection.test, kit, panels, patient, patientToken: body.patient ? null : body.patient_token!, insurance, insuranceToken: body.insurance_token ?? null };
}
