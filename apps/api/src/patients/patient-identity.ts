import { createHash } from 'node:crypto';

/** Names compare trimmed and case-insensitively. */
export function normalizeName(name: string): string {
  return name.trim().toLowerCase();
}

export interface PatientIdentity {
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
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** `YYYY-MM-DD` or `YYYYMMDD` to `YYYYMMDD`. */
export function compactDate(date: string): string {
  return date.replace(/-/g, '');
}

/** True when a `YYYYMMDD` string names a real calendar date. */
export function isCalendarDate(yyyymmdd: string): boolean {
  const y = Number(yyyymmdd.slice(0, 4));
  const m = Number(yyyymmdd.slice(4, 6));
  const d = Number(yyyymmdd.slice(6, 8));
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}
