import type { Environment } from '../auth/principal.js';

/** Where a consult stands (the spec's `ConsultStatus`, the real platform's casing). */
export type ConsultStatus = 'REVIEW' | 'completed' | 'issue' | 'rejected' | 'issueCompleted' | 'issueRejected' | 'canceled';

/** The provider of a consult as it was when assigned (`{npi, first_name, last_name, title}`). */
export interface ConsultProvider {
  npi: string;
  first_name: string;
  last_name: string;
  title: string | null;
}

/**
 * A consult of a tenant's program. The program's name and the provider are kept as they
 * were (a later care team import changes no past consult); the patient is a patient
 * record, by token.
 */
export interface ConsultsTable {
  /** 24 lower-case hex characters. */
  id: string;
  customer_id: string;
  environment: Environment;
  status: ConsultStatus;
  program_id: string;
  program_name: string;
  questionnaire_id: string;
  patient_token: string;
  /** Where the patient is (the shipping address's state): who may see them. */
  state: string;
  provider_id: string | null;
  /** JSON `ConsultProvider`. */
  provider: string | null;
  /** Its full name, as the listing's `provider_name` filter matches it. */
  provider_name: string | null;
  metadata: string | null;
  payment_type: string | null;
  notes_to_patient: string | null;
  appointment_start: string | null;
  appointment_end: string | null;
  completed_at: string | null;
  bundled: 0 | 1;
  is_video_consult: 0 | 1;
  created_at: string;
  updated_at: string;
}

/** The time a consult's appointment books of a provider; freed when the consult is canceled. */
export interface ConsultAppointmentsTable {
  consult_id: string;
  environment: Environment;
  provider_id: string;
  start: string;
  end: string;
  canceled_at: string | null;
}

/** A task a consult creates (an issue for the patient to resolve), open until resolved. */
export interface ConsultTasksTable {
  id: string;
  consult_id: string;
  task_type: string;
  status: 'open' | 'completed' | 'canceled';
  created_at: string;
  updated_at: string;
}

declare module '../db/database.js' {
  interface Database {
    consults: ConsultsTable;
    consult_appointments: ConsultAppointmentsTable;
    consult_tasks: ConsultTasksTable;
  }
}
