import { createDecipheriv } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';
import { rewriteSealedColumns, type BatchWriter, type Rewrite, type SealedColumns } from '../../crypto/sealed-columns.js';
import type { SecretBox } from '../../crypto/secret-box.js';

const RENAMES = [
  ['ssn', 'ssn_encrypted'],
  ['ssn_serial', 'ssn_serial_encrypted'],
  ['mbi', 'mbi_encrypted'],
  ['id_image', 'id_image_encrypted'],
] as const;

const patients: SealedColumns = { table: 'patients', key: ['token'], columns: RENAMES.map(([, to]) => to) };
const webhookEndpoints: SealedColumns = { table: 'webhook_endpoints', key: ['customer_id', 'environment'], columns: ['secret_encrypted'] };

/**
 * A webhook secret sealed before key ids (`v1:` + base64(iv | tag | ciphertext), its owner
 * `webhook_endpoint:<customer>:<environment>` as associated data), opened with whichever
 * configured key sealed it; undefined for a value in another format.
 */
function openV1(secrets: SecretBox, value: string, row: Record<string, unknown>): string | undefined {
  if (!value.startsWith('v1:')) return undefined;
  const raw = Buffer.from(value.slice(3), 'base64');
  for (const { key } of secrets.keyring().keys) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(`webhook_endpoint:${String(row.customer_id)}:${String(row.environment)}`));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      // Not this key: try the next.
    }
  }
  throw new Error(`the webhook secret of ${String(row.customer_id)} (${String(row.environment)}) opens with no configured key`);
}

/**
 * Patients' SSN, SSN serial, MBI and ID image move to sealed columns (`*_encrypted`), each
 * value sealed with the secrets key in its context (table, column, patient token); webhook
 * secrets sealed before key ids are sealed again in the same format and context scheme. No
 * clear value remains. It needs the key only when there is something to seal: the service
 * and the admin commands run migrations with their configuration (migrate.ts).
 */
export function encryptedPatientFields(secrets: SecretBox): Migration {
  const sealClear: Rewrite = (clear, context) => secrets.seal(clear, context);
  const sealV1: Rewrite = (value, context, row) => {
    const secret = openV1(secrets, value, row);
    return secret === undefined ? undefined : secrets.seal(secret, context);
  };
  const convert = async (trx: Kysely<any>) => {
    for (const [from, to] of RENAMES) await trx.schema.alterTable('patients').renameColumn(from, to).execute();
    const write: BatchWriter = (work) => work(trx);
    await rewriteSealedColumns(trx, write, patients, sealClear, 500);
    await rewriteSealedColumns(trx, write, webhookEndpoints, sealV1, 500);
  };
  return {
    async up(db: Kysely<any>) {
      // Every migration runs in a transaction (db/migrate.ts): the migrator's on PostgreSQL,
      // the migration lock's on the embedded database; this one never stops half done.
      await convert(db);
    },
  };
}
