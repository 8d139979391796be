// A patient's SSN, SSN serial, MBI and ID image are stored sealed: the row never holds them in
// clear, they open only in their own row and column, and a key that does not fit fails loudly
// without leaking them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../src/crypto/keyring.js';
import { contextOf } from '../src/crypto/sealed-columns.js';
import { SecretBox } from '../src/crypto/secret-box.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { patientSealedColumns } from '../src/patients/patient-sealed-fields.js';
import { createPatient } from './support/fixtures.js';
import { identifiers, otherProcess, sealedWith, storedPatient, withoutLineNumbers, NEW_KEY } from './support/sealed-fields.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { TEST_SECRETS_KEY } from './support/webhook-receiver.js';

const changed = { ssn: '987654321', ssn_serial: '4321', mbi: '9XY8WV7UT65', id_image: 'https://files.example.com/id/jane-2.png' };
const columnOf = { ssn: 'ssn_encrypted', ssn_serial: 'ssn_serial_encrypted', mbi: 'mbi_encrypted', id_image: 'id_image_encrypted' } as const;
const SEALED = new RegExp(`^${sealedWith(TEST_SECRETS_KEY)}[A-Za-z0-9+/]+={0,2}$`);

/** The server's box, as an operator holding the key would open a value. */
const box = new SecretBox(() => new Keyring(Buffer.from(TEST_SECRETS_KEY, 'base64')));
const openStored = (value: string | null, column: string, token: string) => box.open(value!, contextOf(patientSealedColumns, column, { token }));

let t: TestApp;
let acme: NewCustomer;
const logs: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  t = await startTestApp({}, { log: (entry) => logs.push(entry) });
  acme = await t.customer('Acme');
});
afterAll(async () => t?.close());

async function update(token: string, body: Record<string, unknown>) {
  const { response } = await t.client(acme.sandbox_api_key).POST('/v1/patient/{patient_token}', { params: { path: { patient_token: token } }, body });
  expect(response.status).toBe(202);
}

const readPatient = (token: string) => t.client(acme.sandbox_api_key).GET('/v1/patient/{patient_token}', { params: { path: { patient_token: token } } });

describe('a patient’s identifiers at rest', () => {
  it.each([
    ['created with them', async () => createPatient(t, acme.sandbox_api_key, changed)],
    ['given them by an update', async () => {
      const token = await createPatient(t, acme.sandbox_api_key, identifiers);
      await update(token, changed);
      return token;
    }],
  ])('are sealed in the stored row of a patient %s, and open there to what was written', async (_story, write) => {
    const token = await write();
    const row = await storedPatient(t.database.handle.db, token);
    for (const clear of [changed.ssn, changed.mbi, changed.id_image, identifiers.ssn, identifiers.mbi]) expect(JSON.stringify(row)).not.toContain(clear);
    for (const [field, column] of Object.entries(columnOf)) {
      expect(row[column]).toMatch(SEALED);
      expect(openStored(row[column], column, token)).toBe(changed[field as keyof typeof changed]);
    }
    expect((await readPatient(token)).data?.mbi).toBe(changed.mbi);
  });

  it('leaves the columns null when the fields are not given', async () => {
    const token = await createPatient(t, acme.sandbox_api_key);
    const row = await storedPatient(t.database.handle.db, token);
    expect(Object.values(columnOf).map((column) => row[column])).toEqual([null, null, null, null]);
    expect((await readPatient(token)).data?.mbi).toBeNull();
  });
});

describe('a sealed value out of place', () => {
  it('does not open in another patient’s row: the read fails with a bare 500 and a log line naming the field', async () => {
    const owner = await createPatient(t, acme.sandbox_api_key, identifiers);
    const other = await createPatient(t, acme.sandbox_api_key, { mbi: 'ABCDEFGHIJK' });
    const stolen = await storedPatient(t.database.handle.db, owner);
    await t.database.handle.db
      .updateTable('patients')
      .set({ ssn_encrypted: stolen.ssn_encrypted, mbi_encrypted: stolen.mbi_encrypted })
      .where('token', '=', other)
      .execute();

    const moved = await storedPatient(t.database.handle.db, other);
    expect(() => openStored(moved.ssn_encrypted, 'ssn_encrypted', other)).toThrow(`patients.ssn_encrypted:${other} does not open`);
    logs.length = 0;
    const read = await readPatient(other);
    expect(read.response.status).toBe(500);
    expect(read.error).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'An internal server error occurred.' });
    const text = JSON.stringify(logs);
    expect(text).toContain(`patients.mbi_encrypted:${other} does not open`);
    expect(withoutLineNumbers(text)).not.toContain(identifiers.mbi);
    expect(withoutLineNumbers(text)).not.toContain(identifiers.ssn);
    // Where it belongs, it still opens.
    expect((await readPatient(owner)).data?.mbi).toBe(identifiers.mbi);
  });

  it('does not open in another column of the same row', async () => {
    const token = await createPatient(t, acme.sandbox_api_key, identifiers);
    const row = await storedPatient(t.database.handle.db, token);
    expect(() => openStored(row.ssn_encrypted, 'mbi_encrypted', token)).toThrow('does not open');
    await t.database.handle.db.updateTable('patients').set({ mbi_encrypted: row.ssn_encrypted }).where('token', '=', token).execute();
    expect((await readPatient(token)).response.status).toBe(500);
  });
});

describe('a process whose key does not fit', () => {
  it('fails the read loudly, names the key id it lacks, and logs no identifier', async () => {
    const token = await createPatient(t, acme.sandbox_api_key, identifiers);
    const other = await otherProcess(t.database, { SECRETS_KEY: NEW_KEY });
    try {
      const read = await other.get(`/v1/patient/${token}`, acme.sandbox_api_key);
      expect(read).toEqual({ status: 500, json: { statusCode: 500, error: 'Internal Server Error', message: 'An internal server error occurred.' } });
      const text = other.logs.join('\n');
      const keyId = sealedWith(TEST_SECRETS_KEY).split(':')[1];
      expect(text).toContain(`patients.mbi_encrypted:${token} is sealed with key ${keyId}, which is configured neither as SECRETS_KEY`);
      for (const clear of Object.values(identifiers)) expect(withoutLineNumbers(text)).not.toContain(clear);
    } finally {
      await other.close();
    }
  });
});
