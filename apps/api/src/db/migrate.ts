import { type Migration, type MigrationProvider, type MigrationResultSet, Migrator, sql } from 'kysely';
import { SecretBox } from '../crypto/secret-box.js';
import type { DatabaseHandle, Dialect } from './database.js';
import { customersAndPatients } from './migrations/001-customers-and-patients.js';
import { transfers } from './migrations/002-transfers.js';
import { fillRequests } from './migrations/003-fill-requests.js';
import { events } from './migrations/004-events.js';
import { webhookEndpoints } from './migrations/005-webhook-endpoints.js';
import { sandboxSteps } from './migrations/006-sandbox-steps.js';
import { eventFeed } from './migrations/007-event-feed.js';
import { originRequestIds } from './migrations/008-origin-request-ids.js';
import { encryptedPatientFields } from './migrations/009-encrypted-patient-fields.js';
import { webhookEndpointStatus } from './migrations/011-webhook-endpoint-status.js';
import { idempotencyKeys } from './migrations/012-idempotency-keys.js';
import { auditTrail } from './migrations/013-audit-trail.js';
import { platformIdentity } from './migrations/014-platform-identity.js';
import { diagnostics } from './migrations/015-diagnostics.js';
import { consults } from './migrations/016-consults.js';
import { fillCancellations } from './migrations/017-fill-cancellations.js';
import { scheduledActions } from './migrations/018-scheduled-actions.js';
import { media } from './migrations/019-media.js';
import { referenceData } from './migrations/020-reference-data.js';
import { sameDayDeliveries } from './migrations/021-same-day-deliveries.js';
import { dashboardAndDeliveryAttempts } from './migrations/022-dashboard-and-delivery-attempts.js';
import { sandboxSimulations } from './migrations/023-sandbox-simulations.js';
import { patientIdentityIndex } from './migrations/024-patient-identity-index.js';
import { fillsFoundByPatient } from './migrations/025-fills-found-by-patient.js';
import { fillRequestsMetadataIndex } from './migrations/026-fill-requests-metadata-index.js';
import { sandboxStepsSubjectIndex } from './migrations/027-sandbox-steps-subject-index.js';
import { unreadIndexes } from './migrations/028-unread-indexes.js';

/** Every migration, in order, for a dialect. Names are permanent once released. */
const migrations = (dialect: Dialect, secrets: SecretBox): Record<string, Migration> => ({
  '001-customers-and-patients': customersAndPatients,
  '002-transfers': transfers,
  '003-fill-requests': fillRequests,
  '004-events': events(dialect),
  '005-webhook-endpoints': webhookEndpoints,
  '006-sandbox-steps': sandboxSteps,
  '007-event-feed': eventFeed,
  '008-origin-request-ids': originRequestIds,
  '009-encrypted-patient-fields': encryptedPatientFields(secrets),
  '011-webhook-endpoint-status': webhookEndpointStatus,
  '012-idempotency-keys': idempotencyKeys,
  '013-audit-trail': auditTrail(dialect),
  '014-platform-identity': platformIdentity,
  '015-diagnostics': diagnostics,
  '016-consults': consults,
  '017-fill-cancellations': fillCancellations,
  '018-scheduled-actions': scheduledActions(dialect),
  '019-media': media,
  '020-reference-data': referenceData,
  '021-same-day-deliveries': sameDayDeliveries,
  '022-dashboard-and-delivery-attempts': dashboardAndDeliveryAttempts,
  '023-sandbox-simulations': sandboxSimulations,
  '024-patient-identity-index': patientIdentityIndex,
  '025-fills-found-by-patient': fillsFoundByPatient,
  '026-fill-requests-metadata-index': fillRequestsMetadataIndex,
  '027-sandbox-steps-subject-index': sandboxStepsSubjectIndex,
  '028-unread-indexes': unreadIndexes,
});

/** For callers without a configuration: a migration that has values to seal stops, saying so. */
const NO_KEY = new SecretBox(() => {
  throw new Error('stored values must be sealed: run migrations with the secrets key (pnpm start or an admin command)');
});

/**
 * The key of the PostgreSQL advisory lock migrations hold (any fixed number: this one spells
 * "pharmacy" in ASCII). It is taken per database, so schemas of one database migrate in turn.
 */
const POSTGRES_MIGRATION_LOCK = '8099831073915102073';

type Run = (migrator: Migrator) => Promise<MigrationResultSet>;

/**
 * Brings the schema up to date; safe to run from several processes, and several times in one,
 * at once. Some migrations seal stored values (009): they take the server's keys from `secrets`.
 */
export function migrateToLatest(database: DatabaseHandle, secrets: SecretBox = NO_KEY): Promise<void> {
  return inTurn(database, () => migrateExclusively(database, secrets, (migrator) => migrator.migrateToLatest()));
}

/** Runs the migrations up to `target` (tests that write data as an older schema held it). */
export function migrateTo(database: DatabaseHandle, target: string, secrets: SecretBox = NO_KEY): Promise<void> {
  return inTurn(database, () => migrateExclusively(database, secrets, (migrator) => migrator.migrateTo(target)));
}

async function runMigrator({ db, dialect }: DatabaseHandle, secrets: SecretBox, run: Run): Promise<void> {
  // On PostgreSQL the bookkeeping table lives in the current schema, so databases that
  // share a server under different search paths never see each other's migrations.
  const migrationTableSchema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect, secrets) };
  const { error, results } = await run(new Migrator({ db, provider, migrationTableSchema }));
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`database migration ${failed} failed: ${String((error as Error).message ?? error)}`);
  }
}

/**
 * Runs the migrator holding the database's migration lock, so processes starting together
 * on a new database (the service, an admin command) take turns: the first migrates, the
 * next find every migration done. PostgreSQL: a session advisory lock, held on a connection
 * of its own while the migrator works on others (it runs each migration in a transaction).
 * The embedded database: an immediate transaction (its write lock, waited for up to
 * `busy_timeout`) around every migration, on its one connection; a failed migration then
 * leaves nothing behind, and a migration is never done without being recorded.
 */
async function migrateExclusively(database: DatabaseHandle, secrets: SecretBox, run: Run): Promise<void> {
  const { db } = database;
  if (database.dialect === 'postgres') {
    await db.connection().execute(async (lockHolder) => {
      await sql`select pg_advisory_lock(${POSTGRES_MIGRATION_LOCK}::bigint)`.execute(lockHolder);
      try {
        await runMigrator(database, secrets, run);
      } finally {
        await sql`select pg_advisory_unlock(${POSTGRES_MIGRATION_LOCK}::bigint)`.execute(lockHolder);
      }
    });
    return;
  }
  await sql`begin immediate`.execute(db);
  try {
    await runMigrator(database, secrets, run);
  } catch (error) {
    await sql`rollback`.execute(db);
    throw error;
  }
  await sql`commit`.execute(db);
}

/** Migrations under way per handle: calls on one handle take turns too (the embedded database has one connection). */
const underWay = new WeakMap<DatabaseHandle['db'], Promise<void>>();

function inTurn(database: DatabaseHandle, migrate: () => Promise<void>): Promise<void> {
  const previous = underWay.get(database.db) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(migrate);
  underWay.set(database.db, next);
  return next;
}
