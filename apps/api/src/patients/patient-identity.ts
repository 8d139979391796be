import { hash } from 'node:crypto';

/** Names compare trimmed and case-insensitively. */
export function normalizeName(name: string): string {
  return name.trim().toLowerCase();
}

interface PatientIdentity {
  first_name: string;
  last_name: string;
  dob: string;
  gender: string;
  guardian: string | null;
  species: string;
}

/** The key two creates of the same patient share, so the second answers the first's token. */
export function identityKey(p: PatientIdentity): string {
  const parts = [
    normalizeName(p.first_name),
    normalizeName(p.last_name),
    p.dob,
    p.gender,
    normalizeName(p.guardian ?? ''),
    p.species,
  ];
  return hash('sha256', JSON.stringify(parts), 'hex');
}
