import { type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { DatabaseHandle, Dialect } from './database.js';
import { customersAndPatients } from './migrations/001-customers-and-patients.js';
import { transfers } from './migrations/002-transfers.js';
import { fillRequests } from './migrations/003-fill-requests.js';
import { events } from './migrations/004-events.js';
import { webhookEndpoints } from './migrations/005-webhook-endpoints.js';
import { sandboxSteps } from './migrations/006-sandbox-steps.js';
import { eventFeed } from './migrations/007-event-feed.js';
import { originRequestIds } from './migrations/008-origin-request-ids.js';
import { webhookEndpointStatus } from './migrations/011-webhook-endpoint-status.js';

/** Every migration, in order, for a dialect. Names are permanent once released. */
const migrations = (dialect: Dialect): Record<string, Migration> => ({
  '001-customers-and-patients': customersAndPatients,
  '002-transfers': transfers,
  '003-fill-requests': fillRequests,
  '004-events': events(dialect),
  '005-webhook-endpoints': webhookEndpoints,
  '006-sandbox-steps': sandboxSteps,
  '007-event-feed': eventFeed,
  '008-origin-request-ids': originRequestIds,
  '011-webhook-endpoint-status': webhookEndpointStatus,
});

/** Brings the schema up to date; safe to run from several processes at once. */
export async function migrateToLatest({ db, dialect }: DatabaseHandle): Promise<void> {
  // On PostgreSQL the bookkeeping table lives in the current schema, so databases that
  // share a server under different search paths never see each other's migrations.
  const migrationTableSchema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  const { error, results } = await new Migrator({ db, provider, migrationTableSchema }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`database migration ${failed} failed: ${String((error as Error).message ?? error)}`);
  }
}
