import type { components } from '@pharmacy/contract';
import type { Flag } from '../db/database.js';
import type { PatientRow } from './patient-repository.js';
import type { ReadablePatient } from './patient-service.js';

type Schemas = components['schemas'];

export function flag(value: Flag | null): boolean | null {
  return value === null ? null : value === 1;
}

/** The read shape of seed 2.1. `ssn` and `id_image` are never part of it; `mbi` is, opened. */
export function presentPatient({ row: p, mbi }: ReadablePatient): Schemas['Patient'] {
  return {
    patient_token: p.token,
    first_name: p.first_name,
    last_name: p.last_name,
    guardian: p.guardian,
    gender: p.gender as Schemas['Gender'],
    dob: p.dob,
    mbi,
    address: {
      name: `${p.first_name} ${p.last_name}`,
      street1: p.street1,
      street2: p.street2,
      city: p.city,
      state: p.state,
      zip: p.zip,
      company: p.company,
      country: p.country,
      phone: p.phone,
      email: p.email,
      communications_opt_in: flag(p.communications_opt_in),
    },
  };
}

/** The find shape of seed 2.1. */
export function presentPatientMatch(p: PatientRow): Schemas['PatientMatch'] {
  return {
    patient_token: p.token,
    first_name: p.first_name,
    last_name: p.last_name,
    guardian: p.guardian,
    gender: p.gender as Schemas['Gender'],
    dob: p.dob,
    communications_opt_in: flag(p.communications_opt_in),
    species: p.species as Schemas['Species'],
  };
}
