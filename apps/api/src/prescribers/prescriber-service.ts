import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { ownerColumns, visibleTo } from '../db/ownership.js';
import { notFound } from '../errors.js';
import { nowIso, recordToken } from '../tokens.js';
import type { PrescriberRepository, PrescriberRow } from './prescriber-repository.js';

const PRESCRIBER_NOT_FOUND = 'Unable to find Prescriber.';

/** A prescriber as a submission names it (a direct transfer's `prescriber`). */
type PrescriberDetails = components['schemas']['DirectTransferPrescriber'];

/**
 * Prescriber records. They come from the prescriptions the pharmacy receives (direct
 * transfers now, electronic prescriptions later): one record per NPI per customer and
 * environment, whose name and address follow the latest submission.
 */
export class PrescriberService {
  constructor(private readonly prescribers: PrescriberRepository) {}

  /** Records the prescriber inside the caller's unit of work; answers its token. */
  async record(trx: Db, owner: Owner, p: PrescriberDetails): Promise<string> {
    const now = nowIso();
    const row: PrescriberRow = {
      token: recordToken(),
      ...ownerColumns(owner),
      npi: p.npi,
      first_name: p.first_name,
      last_name: p.last_name,
      dea_number: null,
      address_name: p.address.name,
      address_company: p.address.company,
      address_street1: p.address.street1,
      address_street2: p.address.street2 || null,
      address_city: p.address.city,
      address_state: p.address.state.toUpperCase(),
      address_zip: p.address.zip,
      // Addresses of submissions carry no country; a part not known is empty.
      address_country: '',
      address_phone: p.address.phone ?? '',
      address_email: p.address.email ?? '',
      phone: p.address.phone ?? '',
      fax: null,
      created_at: now,
      updated_at: now,
    };
    return this.prescribers.upsertByNpi(owner, row, trx);
  }

  /** Another customer's prescriber, or one of the other environment, does not exist here. */
  async get(owner: Owner, token: string): Promise<PrescriberRow> {
    return visibleTo(await this.prescribers.findByToken(token), owner, { notFound: () => notFound(PRESCRIBER_NOT_FOUND) });
  }
}
