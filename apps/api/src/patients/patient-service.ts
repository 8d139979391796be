import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import type { Db, Flag } from '../db/database.js';
import { ownerColumns, visibleTo } from '../db/ownership.js';
import { runSingleWrite, type Transactor } from '../db/transactor.js';
import { ReadCache } from '../read-cache.js';
import { invalidField, notFound, notOwner } from '../errors.js';
import { nowIso, recordToken } from '../tokens.js';
import { compactDate, isCalendarDate } from '../dates.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { identityKey, normalizeName } from './patient-identity.js';
import type { PatientChanges, PatientRepository, PatientRow } from './patient-repository.js';
import { openMbi, sealNewPatientFields, sealPatientChanges } from './patient-sealed-fields.js';

type Schemas = components['schemas'];
/** A patient as `getPatient` answers it: the row, and beside it (not copied into a new row of 33 columns) its MBI opened. */
export interface ReadablePatient {
  row: PatientRow;
  mbi: string | null;
}
export type PatientCreate = Schemas['PatientCreate'];
export type PatientUpdate = Schemas['PatientUpdate'];
interface PatientFind {
  first_name: string;
  last_name: string;
  gender: 'male' | 'female' | 'unknown';
  dob: string;
  guardian?: string;
  prefix?: string;
  suffix?: string;
  zip?: string;
  species?: string;
}

const PATIENT_NOT_FOUND = 'Unable to find Patient.';
const PATIENT_NOT_OWNED = 'Patient does not belong to this customer.';

function toFlag(value: boolean | undefined): Flag | null {
  return value === undefined ? null : value ? 1 : 0;
}

function today(): string {
  return nowIso().slice(0, 10).replace(/-/g, '');
}

function checkDob(dob: string): void {
  if (!isCalendarDate(dob)) throw invalidField('dob', 'must be a valid date');
  if (dob > today()) throw invalidField('dob', 'must not be in the future');
}

/** The notice-of-privacy-practices date defaults to the day of the request when viewed. */
function noticeDate(viewed: boolean | undefined, date: string | undefined): string | null {
  if (date !== undefined) return date;
  return viewed ? today() : null;
}

export class PatientService {
  constructor(
    private readonly patients: PatientRepository,
    private readonly transactor: Transactor,
    /** Seals the SSN, SSN serial, MBI and ID image (patient-sealed-fields.ts). */
    private readonly secrets: SecretBox,
    private readonly cache: ReadCache<PatientRow> = new ReadCache(0),
  ) {}

  /**
   * Creates the patient, or answers the token of the patient with the same identity; in the
   * caller's transaction when given one (a record made with another, e.g. a consult's).
   */
  async create(owner: Owner, input: PatientCreate, trx?: Db): Promise<string> {
    checkDob(input.dob);
    const now = nowIso();
    const species = input.species ?? 'Human';
    const guardian = input.guardian ?? null;
    const token = recordToken();
    const row: PatientRow = {
      token,
      ...ownerColumns(owner),
      // The identity's six fields named, not a copy of the whole body (`{ ...input }`): the
      // copy cost a create 8-14% of its throughput (pnpm bench:compare, apps/api/bench/README.md).
      match_key: identityKey({ first_name: input.first_name, last_name: input.last_name, dob: input.dob, gender: input.gender, guardian, species }),
      first_name: input.first_name,
      last_name: input.last_name,
      first_name_norm: normalizeName(input.first_name),
      last_name_norm: normalizeName(input.last_name),
      guardian,
      dob: input.dob,
      gender: input.gender,
      prefix: input.prefix ?? null,
      suffix: input.suffix ?? null,
      ...sealNewPatientFields(this.secrets, token, input),
      communications_opt_in: toFlag(input.communications_opt_in),
      zip: input.zip ?? null,
      company: input.company ?? null,
      street1: input.street1 ?? null,
      street2: input.street2 ?? null,
      city: input.city ?? null,
      state: input.state?.toUpperCase() ?? null,
      country: input.country?.toUpperCase() ?? null,
      phone: input.phone ?? null,
      email: input.email ?? null,
      language_preference: input.language_preference ?? null,
      species,
      viewed_notice_of_privacy_practices: toFlag(input.viewed_notice_of_privacy_practices),
      viewed_notice_of_privacy_practices_date: noticeDate(
        input.viewed_notice_of_privacy_practices,
        input.viewed_notice_of_privacy_practices_date,
      ),
      created_at: now,
      updated_at: now,
    };
    // One insert (and, after a conflict, a read of the token that stands): no transaction needed on PostgreSQL.
    return trx ? this.patients.insertOrGetToken(owner, row, trx) : runSingleWrite(this.transactor, (own) => this.patients.insertOrGetToken(owner, row, own));
  }

  async find(owner: Owner, q: PatientFind): Promise<PatientRow> {
    const found = await this.patients.findFirst(owner, {
      firstNameNorm: normalizeName(q.first_name),
      lastNameNorm: normalizeName(q.last_name),
      dob: compactDate(q.dob),
      gender: q.gender === 'unknown' ? undefined : q.gender,
      guardian: q.guardian,
      prefix: q.prefix,
      suffix: q.suffix,
      zip: q.zip,
      species: q.species,
    });
    if (!found) throw notFound(PATIENT_NOT_FOUND);
    return found;
  }

  /**
   * The patient with this token, if the caller may see it: another customer's patient is
   * refused (seed 7.5); the caller's own patient in the other environment does not exist here.
   * Inside a unit of work, pass its `trx`: the embedded database has one connection.
   */
  async get(owner: Owner, token: string, trx?: Db): Promise<PatientRow> {
    const row = await this.cache.load(token, () => this.patients.findByToken(token, trx));
    return visibleTo(row, owner, { notFound: () => notFound(PATIENT_NOT_FOUND), otherCustomer: () => notOwner(PATIENT_NOT_OWNED) });
  }

  /** The patient as a read answers it: `get`, with its MBI opened (a value that does not open fails with a SealedValueError). */
  async read(owner: Owner, token: string): Promise<ReadablePatient> {
    const patient = await this.get(owner, token);
    return { row: patient, mbi: openMbi(this.secrets, patient) };
  }

  /** The owner's other patients who look like this one (see PatientRepository.lookAlikes). */
  lookAlikes(owner: Owner, patient: PatientRow, trx?: Db): Promise<string[]> {
    return this.patients.lookAlikes(owner, patient, trx);
  }

  /**
   * Drops what the read cache holds of a patient: for a unit of work that created or read
   * the patient in its transaction and then rolled back (what it read was never committed).
   */
  forget(token: string): void {
    this.cache.invalidate(token);
  }

  async update(owner: Owner, token: string, input: PatientUpdate): Promise<void> {
    await this.get(owner, token);
    const changes: PatientChanges = { updated_at: nowIso() };
    const { communications_opt_in, viewed_notice_of_privacy_practices, state, ssn, ssn_serial, mbi, id_image, ...plain } = input;
    Object.assign(changes, plain, sealPatientChanges(this.secrets, token, { ssn, ssn_serial, mbi, id_image }));
    if (state !== undefined) changes.state = state.toUpperCase();
    if (communications_opt_in !== undefined) changes.communications_opt_in = toFlag(communications_opt_in);
    if (viewed_notice_of_privacy_practices !== undefined) {
      changes.viewed_notice_of_privacy_practices = toFlag(viewed_notice_of_privacy_practices);
      changes.viewed_notice_of_privacy_practices_date = noticeDate(
        viewed_notice_of_privacy_practices,
        input.viewed_notice_of_privacy_practices_date,
      );
    }
    this.cache.invalidate(token);
    try {
      await this.transactor.run((trx) => this.patients.update(token, changes, trx));
    } finally {
      this.cache.invalidate(token);
    }
  }
}
