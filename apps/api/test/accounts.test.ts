import { createPlatformClient, OAuthError } from '@pharmacy/client';
import { contractMiddleware } from '@pharmacy/contract/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../src/accounts/passwords.js';
import type { NewCustomer } from '../src/customers/customer-service.js';
import { accessToken } from './support/platform.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let acme: NewCustomer;
let globex: NewCustomer;
const logs: Record<string, unknown>[] = [];
/** Bearer tokens of Acme's sandbox and production clients, and of Globex's sandbox client. */
let sandbox: string;
let production: string;
let globexSandbox: string;

beforeAll(async () => {
  t = await startTestApp({ LOG_LEVEL: 'debug' }, { log: (entry) => logs.push(entry) });
  acme = await t.customer('Acme');
  globex = await t.customer('Globex');
  [sandbox, production, globexSandbox] = await Promise.all([accessToken(t, acme, 'sandbox'), accessToken(t, acme, 'production'), accessToken(t, globex, 'sandbox')]);
});
afterAll(async () => t?.close());

let emails = 0;
const newEmail = () => `Jane.Doe+${++emails}@Example.com`;
const signUp = (tenantId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.raw('POST', '/public/accounts', { headers: { 'content-type': 'application/json', 'x-tenant-id': tenantId, ...headers }, body: JSON.stringify(body) });
const sandboxAccount = async (body: Record<string, unknown> = {}) => {
  const res = await signUp(acme.tenant_id, { email: newEmail(), password: 'Sunrise2026', ...body }, { 'x-environment': 'sandbox' });
  expect(res.status).toBe(201);
  return res.json.id as string;
};
const consent = (token: string, accountId: string, type: string) =>
  t.raw('POST', `/accounts/${accountId}/consents`, { headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ type }) });
const remove = (token: string, accountId: string) => t.raw('DELETE', `/accounts/${accountId}`, { headers: { authorization: `Bearer ${token}` } });
const accountRow = (id: string) => t.database.handle.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const consentRows = (id: string) => t.database.handle.db.selectFrom('account_consents').selectAll().where('account_id', '=', id).orderBy('type').execute();
const notFound = { statusCode: 404, error: 'Not Found', message: 'Unable to find Account.' };

describe('signing up (POST /public/accounts)', () => {
  it('creates an account of the tenant’s production, with its consents; the password only as an scrypt hash, the contact sealed', async () => {
    const email = newEmail();
    const res = await signUp(acme.tenant_id, { email, password: 'Sunrise2026', contactName: 'Jane Doe', contactNumber: '4155550100', consents: ['terms_of_service', 'privacy_policy'] });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ id: expect.stringMatching(/^acc_[A-Za-z0-9]{20}$/) });
    const row = await accountRow(res.json.id);
    expect(row).toMatchObject({ customer_id: acme.customer_id, environment: 'production', email: email.toLowerCase(), deleted_at: null });
    expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(await verifyPassword('Sunrise2026', row.password_hash!)).toBe(true);
    expect(await verifyPassword('Sunrise2027', row.password_hash!)).toBe(false);
    expect(JSON.stringify(row)).not.toMatch(/Sunrise2026|Jane Doe|4155550100/);
    expect(row.contact_name_encrypted).toMatch(/^v2:/);
    expect((await consentRows(res.json.id)).map((c) => c.type)).toEqual(['privacy_policy', 'terms_of_service']);
  });

  it('creates a sandbox account with x-environment: sandbox', async () => {
    const id = await sandboxAccount();
    expect((await accountRow(id)).environment).toBe('sandbox');
  });

  it.each([
    ['without email', { password: 'Sunrise2026' }, [{ key: 'email', message: 'is required' }]],
    ['without password', { email: 'a@example.com' }, [{ key: 'password', message: 'is required' }]],
    ['with an empty email', { email: '', password: 'Sunrise2026' }, [{ key: 'email', message: 'is not allowed to be empty' }]],
    ['with an email that is not one', { email: 'jane', password: 'Sunrise2026' }, [{ key: 'email', message: 'must be a valid email' }]],
    ['with a password of 7 characters', { email: 'a@example.com', password: 'Sun2026' }, [{ key: 'password', message: 'must be 8 to 72 characters with a lower-case letter, an upper-case letter and a digit' }]],
    ['with a password of 73 characters', { email: 'a@example.com', password: `Aa1${'x'.repeat(70)}` }, [{ key: 'password', message: 'must be 8 to 72 characters with a lower-case letter, an upper-case letter and a digit' }]],
    ['with a password without an upper-case letter', { email: 'a@example.com', password: 'sunrise2026' }, [{ key: 'password', message: 'must be 8 to 72 characters with a lower-case letter, an upper-case letter and a digit' }]],
    ['with a password without a lower-case letter', { email: 'a@example.com', password: 'SUNRISE2026' }, [{ key: 'password', message: 'must be 8 to 72 characters with a lower-case letter, an upper-case letter and a digit' }]],
    ['with a password without a digit', { email: 'a@example.com', password: 'SunriseSun' }, [{ key: 'password', message: 'must be 8 to 72 characters with a lower-case letter, an upper-case letter and a digit' }]],
    ['with an unknown consent', { email: 'a@example.com', password: 'Sunrise2026', consents: ['cookies'] }, [{ key: 'consents.0', message: expect.stringMatching(/^must be one of \[terms_of_service/) }]],
    ['with a field the interface does not take', { email: 'a@example.com', password: 'Sunrise2026', role: 'admin' }, [{ key: 'role', message: 'is not allowed' }]],
  ])('is refused %s (400), writing nothing', async (_, body, errors) => {
    const before = await t.database.handle.db.selectFrom('accounts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const res = await signUp(acme.tenant_id, body);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ statusCode: 400, error: 'Bad Request', validation_errors: errors });
    const after = await t.database.handle.db.selectFrom('accounts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('accepts a password of exactly 8 and of exactly 72 characters', async () => {
    expect((await signUp(acme.tenant_id, { email: newEmail(), password: 'Sunris26' })).status).toBe(201);
    expect((await signUp(acme.tenant_id, { email: newEmail(), password: `Aa1${'x'.repeat(69)}` })).status).toBe(201);
  });

  it('refuses an x-environment that is neither sandbox nor production', async () => {
    const res = await signUp(acme.tenant_id, { email: newEmail(), password: 'Sunrise2026' }, { 'x-environment': 'staging' });
    expect(res.status).toBe(400);
    expect(res.json.validation_errors).toEqual([{ key: 'x-environment', message: 'must be one of [production, sandbox]' }]);
  });

  it('refuses an email the owner has already, in any case (409); another environment or tenant may have it', async () => {
    const email = newEmail();
    expect((await signUp(acme.tenant_id, { email, password: 'Sunrise2026' })).status).toBe(201);
    const again = await signUp(acme.tenant_id, { email: email.toUpperCase(), password: 'Other2026x' });
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ statusCode: 409, error: 'Conflict', message: 'An account with this email already exists.' });
    expect((await signUp(acme.tenant_id, { email, password: 'Sunrise2026' }, { 'x-environment': 'sandbox' })).status).toBe(201);
    expect((await signUp(globex.tenant_id, { email, password: 'Sunrise2026' })).status).toBe(201);
  });

  it('lets only one of two sign-ups with one email at once succeed', async () => {
    const email = newEmail();
    const results = await Promise.all([0, 1, 2].map(() => signUp(acme.tenant_id, { email, password: 'Sunrise2026' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });

  it('answers a retry with the same Idempotency-Key as the first time, not 409', async () => {
    const body = { email: newEmail(), password: 'Sunrise2026' };
    const headers = { 'idempotency-key': `signup-${emails}` };
    const first = await signUp(acme.tenant_id, body, headers);
    const retry = await signUp(acme.tenant_id, body, headers);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.json).toEqual(first.json);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('never logs the email, the password or the contact details', async () => {
    await signUp(acme.tenant_id, { email: 'secret.person@example.com', password: 'Hidden2026x', contactName: 'Secret Person', contactNumber: '5559876543' });
    await signUp(acme.tenant_id, { email: 'secret.person@example.com', password: 'short' });
    expect(JSON.stringify(logs)).not.toMatch(/secret\.person|Hidden2026x|Secret Person|5559876543/i);
  });
});

describe('registering a consent (POST /accounts/{accountId}/consents)', () => {
  it('records it with its time (201); repeating it answers the first record (200) and records nothing', async () => {
    const id = await sandboxAccount();
    const first = await consent(sandbox, id, 'notice_of_privacy_practices');
    expect(first.status).toBe(201);
    expect(first.json).toEqual({ id: expect.stringMatching(/^cns_/), type: 'notice_of_privacy_practices', accountId: id, createdAt: expect.any(String) });
    const again = await consent(sandbox, id, 'notice_of_privacy_practices');
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect((await consent(sandbox, id, 'privacy_policy')).status).toBe(201);
    expect((await consentRows(id)).map((c) => c.type)).toEqual(['notice_of_privacy_practices', 'privacy_policy']);
  });

  it('answers a consent given at sign-up as recorded then', async () => {
    const id = await sandboxAccount({ consents: ['terms_of_service'] });
    const res = await consent(sandbox, id, 'terms_of_service');
    expect(res.status).toBe(200);
  });

  it.each([
    ['an unknown account', () => consent(sandbox, 'acc_nobody', 'privacy_policy')],
    ['an account of the tenant’s other environment', async () => consent(production, await sandboxAccount(), 'privacy_policy')],
    ['an account of another tenant', async () => consent(globexSandbox, await sandboxAccount(), 'privacy_policy')],
  ])('answers 404 for %s', async (_, call) => {
    const res = await call();
    expect(res.status).toBe(404);
    expect(res.json).toEqual(notFound);
  });

  it.each([
    ['an unknown type', 'cookies', [{ key: 'type', message: 'must be one of [terms_of_service, privacy_policy, notice_of_privacy_practices]' }]],
    ['no type', undefined, [{ key: 'type', message: 'is required' }]],
  ])('refuses %s (400)', async (_, type, errors) => {
    const res = await consent(sandbox, await sandboxAccount(), type as string);
    expect(res.status).toBe(400);
    expect(res.json.validation_errors).toEqual(errors);
  });

  it('refuses a malformed account id (400)', async () => {
    const res = await consent(sandbox, 'acc.bad', 'privacy_policy');
    expect(res.status).toBe(400);
    expect(res.json.validation_errors[0].key).toBe('accountId');
  });

  it('needs the scope accounts:consents:create (403)', async () => {
    const token = await accessToken(t, acme, 'sandbox', 'accounts:delete');
    const res = await consent(token, await sandboxAccount(), 'privacy_policy');
    expect(res.status).toBe(403);
    expect(res.json.message).toBe('The access token lacks the scope accounts:consents:create.');
  });
});

describe('deleting an account (DELETE /accounts/{accountId})', () => {
  it('deletes it (204): its consents and personal fields go, a record that it existed stays, and every later call answers 404', async () => {
    const id = await sandboxAccount({ contactName: 'Jane Doe', consents: ['privacy_policy'] });
    const { email } = await accountRow(id);
    const res = await remove(sandbox, id);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await accountRow(id)).toEqual({
      id,
      customer_id: acme.customer_id,
      environment: 'sandbox',
      email: null,
      password_hash: null,
      contact_name_encrypted: null,
      contact_number_encrypted: null,
      created_at: expect.any(String),
      deleted_at: expect.any(String),
    });
    expect(await consentRows(id)).toEqual([]);
    expect((await remove(sandbox, id)).json).toEqual(notFound);
    expect((await consent(sandbox, id, 'privacy_policy')).status).toBe(404);
    // The email is free again.
    expect((await signUp(acme.tenant_id, { email: email!, password: 'Sunrise2026' }, { 'x-environment': 'sandbox' })).status).toBe(201);
  });

  it.each([
    ['of another tenant', () => globexSandbox],
    ['of the tenant’s other environment', () => production],
  ])('answers 404 to a token %s, and the account stays', async (_, token) => {
    const id = await sandboxAccount();
    const res = await remove(token(), id);
    expect(res.status).toBe(404);
    expect((await accountRow(id)).deleted_at).toBeNull();
  });

  it('needs the scope accounts:delete (403), and the account stays', async () => {
    const id = await sandboxAccount();
    const token = await accessToken(t, acme, 'sandbox', 'accounts:consents:create');
    expect((await remove(token, id)).status).toBe(403);
    expect((await accountRow(id)).deleted_at).toBeNull();
  });

  it('is recorded in the audit trail with the account id and the client that called', async () => {
    const id = await sandboxAccount();
    await remove(sandbox, id);
    await t.app.services.audit.flush();
    const [event] = await t.app.services.audit.find({ recordId: id, operation: 'deleteAccount', limit: 1 });
    expect(event).toMatchObject({ actor_type: 'client', actor_id: acme.sandbox_client_id, environment: 'sandbox', status: 204, record_ids: [id] });
  });
});

describe('the typed platform client (@pharmacy/client)', () => {
  it('exchanges its credentials once, then registers a consent and deletes the account, every answer as the spec says', async () => {
    const client = createPlatformClient({
      baseUrl: t.baseUrl,
      clientId: acme.sandbox_client_id,
      clientSecret: acme.sandbox_client_secret,
      audience: acme.audience,
      retry: false,
      middleware: [contractMiddleware()],
    });
    const accountId = await sandboxAccount();
    const recorded = await client.POST('/accounts/{accountId}/consents', { params: { path: { accountId } }, body: { type: 'privacy_policy' } });
    expect(recorded.response.status).toBe(201);
    expect(recorded.data).toMatchObject({ type: 'privacy_policy', accountId });
    const deleted = await client.DELETE('/accounts/{accountId}', { params: { path: { accountId } } });
    expect(deleted.response.status).toBe(204);
    const again = await client.DELETE('/accounts/{accountId}', { params: { path: { accountId } } });
    expect(again.error).toEqual(notFound);
  });

  it('throws a typed OAuthError when its credentials are refused', async () => {
    const client = createPlatformClient({ baseUrl: t.baseUrl, clientId: acme.sandbox_client_id, clientSecret: 'wrong', audience: acme.audience, retry: false });
    const call = client.DELETE('/accounts/{accountId}', { params: { path: { accountId: 'acc_1' } } });
    await expect(call).rejects.toBeInstanceOf(OAuthError);
    await expect(call).rejects.toMatchObject({ status: 401, error: 'invalid_client' });
  });
});
