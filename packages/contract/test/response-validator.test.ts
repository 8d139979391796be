import { describe, expect, it } from 'vitest';
import { contractMiddleware, validateResponse, type ContractResponse, type ContractProblemKind } from '../src/response-validator.js';

const patient = {
  patient_token: 'p7Xk2mQ9rT4vW8yZ1aB3cD5e',
  first_name: 'Jane',
  last_name: 'Doe',
  guardian: null,
  gender: 'female',
  dob: '19800131',
  mbi: null,
  address: {
    name: 'Jane Doe',
    street1: '1 Market St',
    street2: null,
    city: 'San Francisco',
    state: 'CA',
    zip: '94107',
    company: null,
    country: 'US',
    phone: '4155550100',
    email: null,
    communications_opt_in: true,
  },
};
const json = 'application/json; charset=utf-8';
const notFound = { statusCode: 404, error: 'Not Found', message: 'Unable to find Patient.' };

const cases: [string, { given: ContractResponse; want: ContractProblemKind[] }][] = [
  ['a documented patient read', { given: { method: 'GET', url: '/v1/patient/abc', status: 200, contentType: json, body: patient }, want: [] }],
  [
    'the /api alias, a full URL and a query string',
    { given: { method: 'get', url: 'http://localhost:3000/api/v1/patient/abc?x=1', status: 404, contentType: json, body: notFound }, want: [] },
  ],
  [
    'a shared error response reached through $ref',
    { given: { method: 'PUT', url: '/v1/patient', status: 400, contentType: json, body: { statusCode: 400, error: 'Bad Request', validation_errors: [{ key: 'dob', message: 'is required' }] } }, want: [] },
  ],
  ['the YAML document as text', { given: { method: 'GET', url: '/v1/open-api/api.yml', status: 200, contentType: 'application/yaml', body: 'openapi: 3.1.0\n' }, want: [] }],
  ['a path the spec does not have', { given: { method: 'GET', url: '/v1/pets', status: 200, contentType: json, body: {} }, want: ['undocumented-operation'] }],
  ['a method the path does not have', { given: { method: 'DELETE', url: '/v1/patient/abc', status: 200, contentType: json, body: {} }, want: ['undocumented-operation'] }],
  ['/api without /v1 is not an alias', { given: { method: 'GET', url: '/api/patient/abc', status: 200, contentType: json, body: patient }, want: ['undocumented-operation'] }],
  ['a status the operation never answers', { given: { method: 'GET', url: '/v1/patient/abc', status: 418, contentType: json, body: {} }, want: ['undocumented-status'] }],
  ['a content type not documented', { given: { method: 'GET', url: '/v1/patient/abc', status: 200, contentType: 'text/html', body: '<p>' }, want: ['undocumented-content-type'] }],
  ['a missing content type', { given: { method: 'GET', url: '/v1/patient/abc', status: 200, body: patient }, want: ['undocumented-content-type'] }],
  [
    'a read missing the address, with a dashed dob',
    { given: { method: 'GET', url: '/v1/patient/abc', status: 200, contentType: json, body: { ...patient, address: undefined, dob: '1980-01-31' } }, want: ['invalid-body', 'invalid-body', 'invalid-body'] },
  ],
  ['a 401 with another message', { given: { method: 'GET', url: '/v1/patient/abc', status: 401, contentType: json, body: { statusCode: 401, error: 'Unauthorized', message: 'nope' } }, want: ['invalid-body'] }],
];

describe('validateResponse', () => {
  it.each(cases)('%s', (_name, { given, want }) => {
    const problems = validateResponse(given);
    expect(problems.map((p) => p.kind), JSON.stringify(problems)).toEqual(want);
  });

  it('names the offending field', () => {
    const [problem] = validateResponse({ method: 'GET', url: '/v1/patient/abc', status: 200, contentType: json, body: { ...patient, dob: 31 } });
    expect(problem?.message).toMatch(/^GET \/v1\/patient\/abc 200 body\/dob must be string/);
  });
});

describe('contractMiddleware', () => {
  const onResponse = contractMiddleware().onResponse!;
  const call = (url: string, response: Response) =>
    onResponse({ request: new Request(url), response, schemaPath: '', params: {}, id: '1', options: {} as never });

  it('lets a documented response through', async () => {
    const response = Response.json(notFound, { status: 404 });
    await expect(call('http://localhost/v1/patient/abc', response)).resolves.toBeUndefined();
    expect(await response.json()).toEqual(notFound); // the body is still readable by the client
  });

  it('throws listing every problem of an undocumented response', async () => {
    await expect(call('http://localhost/v1/patient/abc', Response.json({ statusCode: 404 }, { status: 404 }))).rejects.toThrow(
      /\[invalid-body\] GET \/v1\/patient\/abc 404 body must have required property 'error'/,
    );
  });

  it('throws on a JSON content type whose body is not JSON', async () => {
    const response = new Response('oops', { status: 500, headers: { 'content-type': 'application/json' } });
    await expect(call('http://localhost/api/v1/patient', response)).rejects.toThrow(/not JSON/);
  });
});
