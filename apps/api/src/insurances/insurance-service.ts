import type { components } from '@pharmacy/contract';
import type { Compilable } from 'kysely';
import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { ownerColumns } from '../db/ownership.js';
import { executeInserts } from '../db/transactor.js';
import { notFound } from '../errors.js';
import { recordToken } from '../tokens.js';
import type { InsuranceRepository, InsuranceRow } from './insurance-repository.js';

const INSURANCE_NOT_FOUND = 'Unable to find Insurance.';

/** A plan as a fill request names it: by token, or by its card fields. */
type InsurancePlan = components['schemas']['FillRequestInsurance'];

/** A patient's insurance records: created from the card fields of fill requests, read by token. */
export class InsuranceService {
  constructor(private readonly insurances: InsuranceRepository) {}

  /** Another customer's record, or one of the other environment, does not exist here. */
  async get(owner: Owner, token: string): Promise<InsuranceRow> {
    const row = await this.insurances.find(owner, token);
    if (!row) throw notFound(INSURANCE_NOT_FOUND);
    return row;
  }

  /** Which of these tokens name insurance records of this patient. */
  tokensOfPatient(patientToken: string, tokens: string[]): Promise<Set<string>> {
    return this.insurances.tokensOfPatient(patientToken, tokens);
  }

  /**
   * Stores a record of the patient for every plan given by its card fields, in the caller's
   * unit of work; answers every plan's token, in order (a plan named by token keeps it).
   */
  async record(trx: Db, owner: Owner, patientToken: string, plans: readonly InsurancePlan[], createdAt: string): Promise<string[]> {
    const { tokens, inserts } = this.recording(trx, owner, patientToken, plans, createdAt);
    await executeInserts(trx, inserts);
    return tokens;
  }

  /**
   * `record` as the caller runs it: every plan's token, in order, and the inserts of the new
   * records (for `executeInserts`, in the caller's unit of work).
   */
  recording(trx: Db, owner: Owner, patientToken: string, plans: readonly InsurancePlan[], createdAt: string): { tokens: string[]; inserts: Compilable[] } {
    const created: InsuranceRow[] = [];
    const tokens = plans.map((p) => {
      if (p.insurance_token) return p.insurance_token;
      const row: InsuranceRow = {
        token: recordToken(),
        ...ownerColumns(owner),
        patient_token: patientToken,
        cardholder_id: p.cardholder_id!,
        rx_bin: p.rx_bin!,
        rx_group: p.rx_group ?? null,
        pcn: p.pcn ?? null,
        phone_number: p.phone_number ?? null,
        insurance_card_image_url: p.insurance_card_image_url ?? null,
        created_at: createdAt,
      };
      created.push(row);
      return row.token;
    });
    return { tokens, inserts: this.insurances.inserts(created, trx) };
  }
}
