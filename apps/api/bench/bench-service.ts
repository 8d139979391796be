import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { isPostgresUrl } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { randomToken } from '../src/tokens.js';

/**
 * What every bench gives the service it starts: its database, no rate limits (the bench is
 * one client sending as fast as it can), the sandbox's simulated pharmacy and lab held still
 * (the rows measure answering requests, not the background work of the records they make),
 * media in the bench's folder, one token and media signing key for every process
 * (PostgreSQL needs them set; see the README's TOKEN_SIGNING_KEY), and refills never held
 * (EARLY_REFILL_TOLERANCE=1): the benches fill the same prescriptions again and again, and
 * a refill held until its early-refill date is stored but starts nothing. On PostgreSQL also
 * a SECRETS_KEY: no key is kept beside a file there, and without one every operation that
 * seals a secret (webhook endpoints, accounts) would answer 500 (config.ts: SECRETS_KEY).
 */
export function benchServiceEnv(dataDir: string, databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_ENABLED: 'false',
    SANDBOX_STEP_DELAY_MS: '86400000',
    TOKEN_SIGNING_KEY: process.env.TOKEN_SIGNING_KEY ?? randomBytes(32).toString('base64'),
    MEDIA_DIR: join(dataDir, 'media'),
    MEDIA_SIGNING_KEY: process.env.MEDIA_SIGNING_KEY ?? randomBytes(32).toString('base64'),
    EARLY_REFILL_TOLERANCE: '1',
    ...(isPostgresUrl(databaseUrl) ? { SECRETS_KEY: process.env.SECRETS_KEY || randomBytes(32).toString('base64') } : {}),
  };
}

/** The shipping destination of the benches' fill requests and auto-refills (`address_to_*`). */
export const BENCH_SHIPPING = {
  address_to_name: 'Bench Patient',
  address_to_street1: '1 Market St',
  address_to_city: 'San Francisco',
  address_to_state: 'CA',
  address_to_zip: '94107',
  address_to_phone: '4155550100',
  address_to_email: 'bench@example.com',
} as const;

/**
 * Prescriptions of a patient with fills to spare, stored as the pharmacy would on receiving
 * them (the API has no operation that creates prescriptions); several, so concurrent fill
 * requests seldom wait on one prescription's row.
 */
export async function seedPrescriptions(databaseUrl: string, customerId: string, patientToken: string, count: number): Promise<string[]> {
  const database = openDatabase(databaseUrl);
  const tokens = Array.from({ length: count }, () => randomToken());
  const now = new Date().toISOString();
  await database.db
    .insertInto('prescriptions')
    .values(
      tokens.map((token, i) => ({
        token,
        customer_id: customerId,
        environment: 'sandbox' as const,
        patient_token: patientToken,
        rx_number: String(7_000_000 + i),
        status: 'active',
        is_refill: 0 as const,
        medication_name: 'Atorvastatin 20 mg tablet',
        prescribed_quantity: 1,
        number_of_refills_allowed: 10_000_000,
        refills_remaining: 10_000_000,
        quantity_remaining: 10_000_000,
        expiration_date_utc: '2099-01-01T00:00:00.000Z',
        created_at: now,
      })) as never,
    )
    .execute();
  await database.close();
  return tokens;
}
