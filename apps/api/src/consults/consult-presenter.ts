import type { components } from '@pharmacy/contract';
import type { ConsultProvider, ConsultsTable } from './consult-tables.js';

type Schemas = components['schemas'];

function providerOf(consult: ConsultsTable): (ConsultProvider & { id: string }) | null {
  return consult.provider && consult.provider_id ? { id: consult.provider_id, ...(JSON.parse(consult.provider) as ConsultProvider) } : null;
}

/** A consult as the listing answers it (the real platform's item, with our additions). */
export function presentConsult(consult: ConsultsTable): Schemas['Consult'] {
  const provider = providerOf(consult);
  return {
    id: consult.id,
    status: consult.status,
    patient_token: consult.patient_token,
    provider: provider && { id: provider.id, npi: Number(provider.npi), first_name: provider.first_name, last_name: provider.last_name, title: provider.title },
    program: { id: consult.program_id, name: consult.program_name },
    lab_tests: [],
    appointment: consult.appointment_start && consult.appointment_end ? { start: consult.appointment_start, end: consult.appointment_end } : null,
    state: consult.state,
    bundled: consult.bundled === 1,
    created_at: consult.created_at,
    updated_at: consult.updated_at,
  };
}

/** One consult as `GET /consults/v0/consult/{consult_id}` answers it; fields without a value are left out. */
export function presentConsultDetail(consult: ConsultsTable): Schemas['ConsultDetail'] {
  const provider = providerOf(consult);
  const scheduled = consult.appointment_start !== null && consult.appointment_end !== null;
  return {
    id: consult.id,
    status: consult.status,
    ...(consult.completed_at ? { completed_at: consult.completed_at } : {}),
    ...(consult.metadata ? { metadata: consult.metadata } : {}),
    program: { id: consult.program_id, name: consult.program_name },
    appointment: scheduled ? { scheduled, start: consult.appointment_start!, end: consult.appointment_end! } : { scheduled },
    lab_tests: [],
    ...(provider ? { provider: { npi: Number(provider.npi), first_name: provider.first_name, last_name: provider.last_name, title: provider.title } } : {}),
    patient_token: consult.patient_token,
    ...(consult.notes_to_patient ? { notes_to_patient: consult.notes_to_patient } : {}),
    state: consult.state,
    created_at: consult.created_at,
    updated_at: consult.updated_at,
  };
}
