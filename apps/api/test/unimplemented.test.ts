import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notImplemented } from '../src/errors.js';
import { handlers } from '../src/generated/handler-index.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
const implemented = handlers.listSpecialtyPharmacies;
beforeAll(async () => {
  // Every operation is implemented now: one is put back to its generated stub (as `pnpm
  // generate` scaffolds it) for this app, to show how a stub answers.
  handlers.listSpecialtyPharmacies = async () => {
    throw notImplemented('listSpecialtyPharmacies');
  };
  t = await startTestApp();
});
afterAll(async () => {
  handlers.listSpecialtyPharmacies = implemented;
  await t?.close();
});

/** An operation whose handler is still the generated stub. */
describe('an operation the service does not implement yet', () => {
  it('still checks the API key first', async () => {
    const res = await fetch(`${t.baseUrl}/v1/specialty_pharmacies?prescriber_npi=1588667638&bin=610014`);
    expect(res.status).toBe(401);
  });

  it('answers 501 in the common error shape', async () => {
    const { sandbox_api_key } = await t.customer();
    const res = await fetch(`${t.baseUrl}/v1/specialty_pharmacies?prescriber_npi=1588667638&bin=610014`, { headers: { authorization: `ApiKey ${sandbox_api_key}` } });
    expect(res.status).toBe(501);
    expect(await res.json()).toEqual({ statusCode: 501, error: 'Not Implemented', message: 'Operation listSpecialtyPharmacies is not implemented yet.' });
  });
});
