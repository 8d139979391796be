/**
 * The service parses the body of every non-GET request (even of operations that take none),
 * so each such operation can answer 413 (too large) and 415 (unsupported content type):
 * the spec must say so, or a client and the contract tests would meet undocumented answers.
 */
import { describe, expect, it } from 'vitest';
import { loadOpenApiDocument } from '../src/response-validator.js';

const document = loadOpenApiDocument();
const parsed = Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
  ['put', 'post', 'delete', 'patch'].filter((m) => item[m]).map((m) => ({ name: `${m.toUpperCase()} ${path}`, responses: item[m].responses })),
);

describe('operations whose bodies the service parses', () => {
  it('exist', () => {
    expect(parsed.length).toBeGreaterThan(20);
  });

  it.each(parsed)('$name documents 413 and 415', ({ responses }) => {
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['413', '415']));
  });
});
