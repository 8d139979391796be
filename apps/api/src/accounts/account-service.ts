import type { Owner } from '../auth/principal.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { ownerColumns } from '../db/ownership.js';
import { conflict, notFound } from '../errors.js';
import type { UnitsOfWork } from '../events/unit-of-work.js';
import { nowIso, recordToken } from '../tokens.js';
import { sealAccountContact } from './account-sealed-fields.js';
import type { AccountRepository } from './account-repository.js';
import type { AccountConsentsTable, ConsentType } from './account-tables.js';
import { hashPassword } from './passwords.js';

export interface NewAccount {
  email: string;
  password: string;
  contactName?: string;
  contactNumber?: string;
  consents?: ConsentType[];
}

const accountNotFound = () => notFound('Unable to find Account.');

/** A consent's row for an account, recorded now. */
function consentOf(accountId: string, type: ConsentType, at: string): AccountConsentsTable {
  return { id: `cns_${recordToken(20)}`, account_id: accountId, type, created_at: at };
}

/**
 * The accounts of a tenant's users (seed 2.8, 4.9), one owner (customer and environment)
 * each: created with their consents, consents added, deleted. The password is hashed before
 * the unit of work opens (hashing takes a fifth of a second and holds no lock).
 */
export class AccountService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly units: UnitsOfWork,
    private readonly secrets: SecretBox,
  ) {}

  async create(owner: Owner, input: NewAccount, requestId: string): Promise<{ id: string }> {
    const id = `acc_${recordToken(20)}`;
    const password_hash = await hashPassword(input.password);
    const created_at = nowIso();
    const account = {
      id,
      ...ownerColumns(owner),
      email: input.email.toLowerCase(),
      password_hash,
      ...sealAccountContact(this.secrets, id, input),
      created_at,
      deleted_at: null,
    };
    const consents = [...new Set(input.consents ?? [])].map((type) => consentOf(id, type, created_at));
    const inserted = await this.units.run(requestId, (uow) => this.accounts.insert(uow.trx, account, consents));
    if (!inserted) throw conflict('An account with this email already exists.');
    return { id };
  }

  /** Records a consent of the owner's live account; a consent given already answers as first recorded (`created: false`). */
  async consent(owner: Owner, accountId: string, type: ConsentType, requestId: string) {
    return this.units.run(requestId, async ({ trx }) => {
      if (!(await this.accounts.findLive(owner, accountId, trx))) throw accountNotFound();
      return this.accounts.recordConsent(trx, consentOf(accountId, type, nowIso()));
    });
  }

  /** Deletes the owner's live account: its personal fields and consents go, a record that it existed stays. */
  async delete(owner: Owner, accountId: string, requestId: string): Promise<void> {
    const deleted = await this.units.run(requestId, ({ trx }) => this.accounts.delete(trx, owner, accountId, nowIso()));
    if (!deleted) throw accountNotFound();
  }
}
