/**
 * Some answers come from the service's edge, before or around any operation: a path
 * segment over the router's limit (414), headers or a query string over Node's limit (431),
 * a request that did not arrive in time (408), and the rate limits (429). Any operation can
 * meet them, so every operation must document them, or a client and the contract tests
 * would meet undocumented answers.
 */
import { describe, expect, it } from 'vitest';
import { loadOpenApiDocument } from '../src/response-validator.js';

const document = loadOpenApiDocument();
const operations = Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
  ['get', 'put', 'post', 'delete', 'patch']
    .filter((m) => item[m])
    .map((m) => ({ name: `${m.toUpperCase()} ${path}`, responses: item[m].responses as Record<string, unknown> })),
);

describe('every operation', () => {
  it('exists', () => {
    expect(operations.length).toBeGreaterThan(50);
  });

  it.each(operations)('$name documents 408, 414, 429 and 431', ({ responses }) => {
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['408', '414', '429', '431']));
  });
});
