import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/**
 * What every bench gives the service it starts: its database, no rate limits (the bench is
 * one client sending as fast as it can), the sandbox's simulated pharmacy and lab held still
 * (the rows measure answering requests, not the background work of the records they make),
 * media in the bench's folder, and one token and media signing key for every process
 * (PostgreSQL needs them set; see the README's TOKEN_SIGNING_KEY).
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
