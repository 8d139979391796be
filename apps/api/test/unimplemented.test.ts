import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/** Operations in the spec whose handlers are still the generated stubs. */
describe('an operation the service does not implement yet', () => {
  it('still checks the API key first', async () => {
    const res = await fetch(`${t.baseUrl}/v1/availability?ndc=00071015523`);
    expect(res.status).toBe(401);
  });

  it('answers 501 in the common error shape', async () => {
    const { sandbox_api_key } = await t.customer();
    const res = await fetch(`${t.baseUrl}/v1/availability?ndc=00071015523`, { headers: { authorization: `ApiKey ${sandbox_api_key}` } });
    expect(res.status).toBe(501);
    expect(await res.json()).toEqual({ statusCode: 501, error: 'Not Implemented', message: 'Operation getAvailability is not implemented yet.' });
  });
});
