// Migration 009 on a database written before it: patients' clear SSNs, SSN serials, MBIs and
// ID images are sealed in their new columns, webhook secrets sealed before key ids are sealed
// again, and no clear value remains; without the key it stops and changes nothing.
import { createCipheriv, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Keyring } from '../src/crypto/keyring.js';
import { SecretBox } from '../src/crypto/secret-box.js';
import { migrateTo, migrateToLatest } from '../src/db/migrate.js';
import { identifiers, otherProcess, sealedWith, storedPatient, OLD_KEY } from './support/sealed-fields.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

const NOW = '2024-01-01T00:00:00.000Z';
const key = Buffer.from(OLD_KEY, 'base64');
const owner = { customerId: 'cus_before009', environment: 'sandbox' as const };
const webhookSecret = 'whsec_c2VjcmV0IHNlY3JldCBzZWNyZXQgc2VjcmV0';

/** A webhook secret as the service sealed it before key ids: `v1:` + base64(iv | tag | ciphertext), its owner as associated data. */
function sealedBefore009(plain: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

/** Rows as the schema before 009 held them: one patient with identifiers in clear, one without, and a webhook endpoint. */
async function writeBefore009(db: Kysely<any>): Promise<void> {
  await db.insertInto('customers').values({ id: owner.customerId, name: 'Acme', created_at: NOW }).execute();
  const patient = (token: string, first: string) => ({
    token, customer_id: owner.customerId, environment: owner.environment, match_key: `key_${token}`,
    first_name: first, last_name: 'Doe', first_name_norm: first.toLowerCase(), last_name_norm: 'doe',
    dob: '19800131', gender: 'female', species: 'Human', created_at: NOW, updated_at: NOW,
  });
  await db.insertInto('patients').values([{ ...patient('pat_clear', 'Jane'), ...identifiers }, patient('pat_none', 'June')]).execute();
  await db.insertInto('webhook_endpoints').values({
    customer_id: owner.customerId, environment: owner.environment, url: 'http://127.0.0.1:9/hooks',
    secret_encrypted: sealedBefore009(webhookSecret, `webhook_endpoint:${owner.customerId}:${owner.environment}`),
    secret_hint: 'whsec_c2Vj…', created_at: NOW, updated_at: NOW,
  }).execute();
}

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase({ migrate: false });
  await migrateTo(database.handle, '008-origin-request-ids');
  await writeBefore009(database.handle.db as Kysely<any>);
});
afterEach(async () => database?.dispose());

describe('migration 009 (encrypted patient fields)', () => {
  it('seals every clear identifier and the webhook secret; nothing in clear remains and everything opens', async () => {
    await migrateToLatest(database.handle, new SecretBox(() => new Keyring(key)));

    const row = await storedPatient(database.handle.db, 'pat_clear');
    for (const name of ['ssn', 'ssn_serial', 'mbi', 'id_image']) expect(row).not.toHaveProperty(name);
    for (const column of ['ssn_encrypted', 'ssn_serial_encrypted', 'mbi_encrypted', 'id_image_encrypted'] as const) {
      expect(row[column]!.startsWith(sealedWith(OLD_KEY))).toBe(true);
    }
    for (const clear of [identifiers.ssn, identifiers.mbi, identifiers.id_image]) expect(JSON.stringify(row)).not.toContain(clear);
    const none = await storedPatient(database.handle.db, 'pat_none');
    expect([none.ssn_encrypted, none.ssn_serial_encrypted, none.mbi_encrypted, none.id_image_encrypted]).toEqual([null, null, null, null]);
    const endpoint = await database.handle.db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow();
    expect(endpoint.secret_encrypted.startsWith(sealedWith(OLD_KEY))).toBe(true);

    // The service with that key reads them back.
    const service = await otherProcess(database, { SECRETS_KEY: OLD_KEY });
    try {
      expect((await service.app.services.patients.read(owner, 'pat_clear')).mbi).toBe(identifiers.mbi);
      expect((await service.app.services.webhookEndpoints.target(owner))?.secret).toBe(webhookSecret);
    } finally {
      await service.close();
    }
  });

  it('stops without the key, naming the migration, and leaves the database as it was', async () => {
    await expect(migrateToLatest(database.handle)).rejects.toThrow(
      'database migration 009-encrypted-patient-fields failed: stored values must be sealed: run migrations with the secrets key',
    );
    const row = await (database.handle.db as Kysely<any>).selectFrom('patients').selectAll().where('token', '=', 'pat_clear').executeTakeFirstOrThrow();
    expect(row).toMatchObject(identifiers);
    // With the key, it then runs.
    await migrateToLatest(database.handle, new SecretBox(() => new Keyring(key)));
    expect((await storedPatient(database.handle.db, 'pat_clear')).ssn_encrypted!.startsWith(sealedWith(OLD_KEY))).toBe(true);
  });

});
