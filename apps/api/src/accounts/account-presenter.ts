import type { AccountConsentsTable } from './account-tables.js';

/** A recorded consent as the accounts interface answers it (camelCase, as that interface is). */
export function presentConsent(consent: AccountConsentsTable) {
  return { id: consent.id, type: consent.type, accountId: consent.account_id, createdAt: consent.created_at };
}
