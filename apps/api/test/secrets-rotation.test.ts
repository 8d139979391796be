// Rotating the secrets key: the new key seals, the previous one still opens, `pnpm admin
// reencrypt` moves every sealed value (patients' identifiers, webhook secrets) to the new key
// beside the running service, and then the previous key can be dropped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Owner } from '../src/auth/principal.js';
import { Keyring, keyIdOf } from '../src/crypto/keyring.js';
import { rewriteSealedColumns, type BatchWriter } from '../src/crypto/sealed-columns.js';
import { SecretBox } from '../src/crypto/secret-box.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { transactorFor } from '../src/db/transactor.js';
import { patientSealedColumns } from '../src/patients/patient-sealed-fields.js';
import { createPatient } from './support/fixtures.js';
import { adminWithKeys, identifiers, otherProcess, sealedWith, storedPatient, withoutLineNumbers, NEW_KEY, OLD_KEY } from './support/sealed-fields.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const ROTATED = { SECRETS_KEY: NEW_KEY, SECRETS_KEY_PREVIOUS: OLD_KEY };

let t: TestApp;
let acme: NewCustomer;
let owner: Owner;
beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: OLD_KEY });
  acme = await t.customer('Acme');
  owner = { customerId: acme.customer_id, environment: 'sandbox' };
});
afterAll(async () => t?.close());

/** Every sealed value the database holds. */
async function sealedValues(): Promise<string[]> {
  const db = t.database.handle.db;
  const patients = await db.selectFrom('patients').select(['ssn_encrypted', 'ssn_serial_encrypted', 'mbi_encrypted', 'id_image_encrypted']).execute();
  const endpoints = await db.selectFrom('webhook_endpoints').select('secret_encrypted').execute();
  const accounts = await db.selectFrom('accounts').select(['contact_name_encrypted', 'contact_number_encrypted']).execute();
  const labOrders = await db.selectFrom('diagnostic_orders').select(['insurance_encrypted', 'results_encrypted']).execute();
  return [
    ...patients.flatMap((p) => Object.values(p)),
    ...endpoints.map((e) => e.secret_encrypted),
    ...accounts.flatMap((a) => Object.values(a)),
    ...labOrders.flatMap((o) => Object.values(o)),
  ].filter(
    (v): v is string => v !== null,
  );
}

describe('rotating the secrets key', () => {
  it('opens old values with the previous key, re-encrypts every value, then works without the previous key', async () => {
    const tokens = [];
    for (let i = 0; i < 3; i++) tokens.push(await createPatient(t, acme.sandbox_api_key, identifiers));
    await createPatient(t, acme.sandbox_api_key);
    const { data: endpoint } = await t.client(acme.sandbox_api_key).PUT('/v1/webhook_endpoint', { body: { url: 'http://127.0.0.1:9/hooks' } });
    const contact = { contactName: 'Jane Doe', contactNumber: '4155550100' };
    await t.app.services.accounts.create(owner, { email: 'jane@example.com', password: 'Sunrise2026', ...contact }, 'req_rotation');
    const labTest = (await t.app.services.diagnosticCatalogues.of('sandbox')).tests.find((test) => !test.requires_physician_approval)!;
    await t.app.services.diagnosticOrders.create(
      owner,
      {
        test_id: labTest.id,
        patient: { first_name: 'Jane', last_name: 'Doe', dob: '19800131', gender: 'female', zip: '94107' },
        address: { name: 'Jane Doe', street1: '1 Market St', city: 'San Francisco', zip: '94107' },
        insurance: { payer_name: 'Acme Health Plan', group_id: '006726', member_id: 'A9321328', bin: '997928' },
      },
      'req_rotation_lab',
    );
    expect(new Set((await sealedValues()).map((v) => v.slice(0, 16)))).toEqual(new Set([sealedWith(OLD_KEY)]));

    // Every process now runs with the new key, the old one as previous: old values open, new ones seal with the new key.
    const rotated = await otherProcess(t.database, ROTATED);
    try {
      expect((await rotated.get(`/v1/patient/${tokens[0]}`, acme.sandbox_api_key)).json.mbi).toBe(identifiers.mbi);
      expect((await rotated.app.services.webhookEndpoints.target(owner))?.secret).toBe(endpoint!.secret);
      const fresh = await rotated.app.services.patients.create(owner, { first_name: 'Fresh', last_name: 'Doe', dob: '19900101', gender: 'male', ssn: '111223333' });
      expect((await storedPatient(t.database.handle.db, fresh)).ssn_encrypted!.startsWith(sealedWith(NEW_KEY))).toBe(true);
    } finally {
      await rotated.close();
    }

    const { stdout } = await adminWithKeys(t.database, ROTATED, ['reencrypt', '--batch-size', '2']);
    const report = JSON.parse(stdout);
    expect(report).toEqual({
      key_id: sealedWith(NEW_KEY).split(':')[1],
      fields: [
        { field: 'patients.ssn_encrypted', values: 4, rewritten: 3, changed_meanwhile: 0, remaining: 0 },
        { field: 'patients.ssn_serial_encrypted', values: 3, rewritten: 3, changed_meanwhile: 0, remaining: 0 },
        { field: 'patients.mbi_encrypted', values: 3, rewritten: 3, changed_meanwhile: 0, remaining: 0 },
        { field: 'patients.id_image_encrypted', values: 3, rewritten: 3, changed_meanwhile: 0, remaining: 0 },
        { field: 'webhook_endpoints.secret_encrypted', values: 1, rewritten: 1, changed_meanwhile: 0, remaining: 0 },
        // The endpoint's answer, stored for the Idempotency-Key the client sent with it.
        { field: 'idempotency_keys.response_body', values: 1, rewritten: 1, changed_meanwhile: 0, remaining: 0 },
        // The account's contact details.
        { field: 'accounts.contact_name_encrypted', values: 1, rewritten: 1, changed_meanwhile: 0, remaining: 0 },
        { field: 'accounts.contact_number_encrypted', values: 1, rewritten: 1, changed_meanwhile: 0, remaining: 0 },
        // The lab order's insurance (no results yet).
        { field: 'diagnostic_orders.insurance_encrypted', values: 1, rewritten: 1, changed_meanwhile: 0, remaining: 0 },
        { field: 'diagnostic_orders.results_encrypted', values: 0, rewritten: 0, changed_meanwhile: 0, remaining: 0 },
      ],
      remaining: 0,
    });
    expect((await sealedValues()).every((v) => v.startsWith(sealedWith(NEW_KEY)))).toBe(true);

    // The previous key is dropped: everything still opens, and there is nothing left to re-encrypt.
    const after = await otherProcess(t.database, { SECRETS_KEY: NEW_KEY });
    try {
      for (const token of tokens) expect((await after.get(`/v1/patient/${token}`, acme.sandbox_api_key)).json.mbi).toBe(identifiers.mbi);
      expect((await after.app.services.webhookEndpoints.target(owner))?.secret).toBe(endpoint!.secret);
      const again = await after.app.services.reencryption.run();
      expect(again.fields.map((f) => [f.values, f.rewritten])).toEqual([[4, 0], [3, 0], [3, 0], [3, 0], [1, 0], [1, 0], [1, 0], [1, 0], [1, 0], [0, 0]]);
    } finally {
      await after.close();
    }
  });

  it('stops loudly on a value no configured key opens, naming it without its content, and changes nothing', async () => {
    const token = await createPatient(t, acme.sandbox_api_key, identifiers);
    const before = await storedPatient(t.database.handle.db, token);
    const stranger = Buffer.alloc(32, 9).toString('base64');
    const failed = adminWithKeys(t.database, { SECRETS_KEY: stranger }, ['reencrypt']);
    await expect(failed).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('is sealed with key') });
    const { stderr } = await failed.catch((e: { stderr: string }) => e);
    expect(stderr).toMatch(/patients\.ssn_encrypted:\w+ is sealed with key [0-9a-f]{12}, which is configured neither as SECRETS_KEY/);
    for (const clear of Object.values(identifiers)) expect(withoutLineNumbers(stderr)).not.toContain(clear);
    expect(await storedPatient(t.database.handle.db, token)).toEqual(before);
  });

  it('keeps what the service writes meanwhile: a row changed between read and write is left as the service wrote it', async () => {
    const token = await createPatient(t, acme.sandbox_api_key, { ssn: '555667777' });
    const box = new SecretBox(() => new Keyring(Buffer.from(NEW_KEY, 'base64'), [Buffer.from(OLD_KEY, 'base64')]));
    const transactor = transactorFor(t.database.handle);
    const write: BatchWriter = (work) => transactor.run(work);
    const counts = await rewriteSealedColumns(t.database.handle.db, write, patientSealedColumns, async (value, context, row) => {
      // The service (still on the old key) changes this patient's SSN after the pass read it.
      if (row.token === token && context.includes('ssn_encrypted')) await t.app.services.patients.update(owner, token, { ssn: '999887777' });
      return box.reseal(value, context);
    });
    expect(counts.find((c) => c.field === 'patients.ssn_encrypted')!.changed_meanwhile).toBe(1);
    const row = await storedPatient(t.database.handle.db, token);
    expect(box.open(row.ssn_encrypted!, `patients.ssn_encrypted:${token}`)).toBe('999887777');
  });
});

describe('the keyring', () => {
  it('names each key by an id that does not reveal it, and opens with every key but seals with the current one only', () => {
    const [oldKey, newKey] = [Buffer.from(OLD_KEY, 'base64'), Buffer.from(NEW_KEY, 'base64')];
    const keyring = new Keyring(newKey, [oldKey, newKey]);
    expect(keyring.keys.map((k) => k.id)).toEqual([keyIdOf(newKey), keyIdOf(oldKey)]);
    for (const { id, key } of keyring.keys) {
      expect(id).toMatch(/^[0-9a-f]{12}$/);
      expect(key.toString('hex')).not.toContain(id);
    }
    const before = new SecretBox(() => new Keyring(oldKey)).seal('123456789', 'patients.ssn_encrypted:pat_1');
    const box = new SecretBox(() => keyring);
    expect(box.open(before, 'patients.ssn_encrypted:pat_1')).toBe('123456789');
    expect(box.seal('123456789', 'patients.ssn_encrypted:pat_1').startsWith(sealedWith(NEW_KEY))).toBe(true);
  });
});
