import type { components } from '@pharmacy/contract';
import type { SecretBox } from '../crypto/secret-box.js';
import type { CataloguePanel, DiagnosticCatalogue } from './catalogue.js';
import type { DiagnosticOrderRow } from './diagnostic-order-repository.js';
import { openOrderField } from './diagnostic-sealed-fields.js';
import { referenceRange, type StoredResult } from './lab-results.js';
import type { InsuranceInput, OrderPatient } from './order-intake.js';

type Schemas = components['schemas'];

/** Leaves out the properties without a value: the real platform's order has no nulls. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as T;
}

const json = <T>(text: string | null): T | undefined => (text === null ? undefined : (JSON.parse(text) as T));

/** `****1328`: an identifier answered by its last four characters only. */
function masked(value: string): string {
  return `****${value.slice(-4)}`;
}

/** The patient as the real platform answers it: the date of birth as `{day, month, year}`. */
function presentPatient({ dob, ...patient }: OrderPatient): Schemas['DiagnosticOrderPatient'] {
  return { ...patient, dob: { year: Number(dob.slice(0, 4)), month: Number(dob.slice(4, 6)), day: Number(dob.slice(6, 8)) } };
}

export function presentOrder(order: DiagnosticOrderRow, secrets: SecretBox): Schemas['DiagnosticOrder'] {
  const insurance = order.insurance_encrypted ? openOrderField<Partial<InsuranceInput>>(secrets, order.id, 'insurance_encrypted', order.insurance_encrypted) : undefined;
  const shipment = (carrier: string | null, tracking_number: string | null) => (carrier && tracking_number ? { carrier, tracking_number } : undefined);
  return defined({
    id: order.id,
    test: { id: order.test_id, name: order.test_name },
    panels: (JSON.parse(order.panels) as CataloguePanel[]).map((p) => ({ name: p.name, description: p.description, code: p.code })),
    kit: defined({
      id: order.kit_id,
      sku: order.kit_sku,
      serial: order.kit_serial ?? undefined,
      return_shipment: shipment(order.return_carrier, order.return_tracking_number),
      shipment: shipment(order.shipment_carrier, order.shipment_tracking_number),
    }),
    status: order.status,
    patient: presentPatient(JSON.parse(order.patient) as OrderPatient),
    patient_token: order.patient_token ?? undefined,
    address: json<Schemas['DiagnosticShippingAddress']>(order.address),
    physician: json<Schemas['DiagnosticPhysician']>(order.physician),
    insurance: insurance && (defined({ ...insurance, member_id: insurance.member_id && masked(insurance.member_id) }) as Schemas['DiagnosticInsurance']),
    insurance_token: order.insurance_token ?? undefined,
    accession_id: order.accession_id ?? undefined,
    custom_data_1: order.custom_data_1 ?? undefined,
    custom_data_2: order.custom_data_2 ?? undefined,
    custom_data_3: order.custom_data_3 ?? undefined,
    media_ids: JSON.parse(order.media_ids) as string[],
    specimen: json<Schemas['DiagnosticSpecimen']>(order.specimen),
    created_at: order.created_at,
    updated_at: order.updated_at,
  });
}

/** A result of the v0 listing: the stored result without its files. */
export function presentResultV0({ media_ids: _media, ...result }: StoredResult): Schemas['DiagnosticResult'] {
  return result;
}

/** The catalogue's tests as `GET /diagnostics/v0/tests` answers them, by name. */
export function presentTests(catalogue: DiagnosticCatalogue): Schemas['DiagnosticTestList'] {
  return catalogue.tests
    .map((test) => ({
      id: test.id,
      name: test.name,
      description: test.description,
      sample_type: test.sample_type,
      requires_physician_approval: test.requires_physician_approval,
      kit_ids: test.kit_ids,
      panels: test.panels.map((panel) => ({
        code: panel.code,
        name: panel.name,
        description: panel.description,
        results: panel.analytes.map((a) => ({ code: a.code, code_system: a.code_system, name: a.name, kind: a.kind, unit: a.unit, reference_range: referenceRange(a) })),
      })),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The catalogue's kits as `GET /diagnostics/v0/kits` answers them, by name, each with the tests it serves. */
export function presentKits(catalogue: DiagnosticCatalogue): Schemas['DiagnosticKit'][] {
  return catalogue.kits
    .map((kit) => ({ ...kit, test_ids: catalogue.tests.filter((t) => t.kit_ids.includes(kit.id)).map((t) => t.id) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
