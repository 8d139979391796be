/**
 * The spec covers the seed: every operation listed in spec/seed-operations.txt is in the
 * bundle (a missing or misspelled path fails), and every operation of the bundle is either
 * listed there, taken from the real platform's interface (`x-source: real`) or marked
 * `x-designed: true`; every webhook event is listed or designed.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiDocumentPath } from '../src/index.js';
import { loadOpenApiDocument } from '../src/response-validator.js';

const listPath = join(dirname(openApiDocumentPath), '..', '..', 'spec', 'seed-operations.txt');
const listed = readFileSync(listPath, 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));
const seedOperations = listed.filter((line) => !line.startsWith('WEBHOOK '));
const seedWebhooks = listed.filter((line) => line.startsWith('WEBHOOK ')).map((line) => line.slice('WEBHOOK '.length));

const document = loadOpenApiDocument();
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const bundled = Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((m) => ({
    key: `${m.toUpperCase()} ${path}`,
    designed: item[m]['x-designed'] === true,
    real: item[m]['x-source'] === 'real',
  })),
);

describe('the spec covers the seed', () => {
  it('lists the 54 operations of seed part 4 and the token exchange', () => {
    expect(seedOperations).toHaveLength(55);
    expect(new Set(seedOperations).size).toBe(seedOperations.length);
  });

  it.each(seedOperations)('has %s', (operation) => {
    expect(bundled.map((o) => o.key)).toContain(operation);
  });

  it('has no operation that is neither in the seed, nor the real interface\'s, nor marked as designed', () => {
    const extra = bundled.filter((o) => !seedOperations.includes(o.key) && !o.designed && !o.real).map((o) => o.key);
    expect(extra).toEqual([]);
  });

  it('marks an operation of the real interface as such only when it is not the seed\'s', () => {
    expect(bundled.filter((o) => o.real && (o.designed || seedOperations.includes(o.key))).map((o) => o.key)).toEqual([]);
  });

  it('lists the 6 events of seed 6.2, its 6 other event type names and the 9 diagnostics events of 6.4', () => {
    expect(seedWebhooks).toHaveLength(21);
    expect(new Set(seedWebhooks).size).toBe(seedWebhooks.length);
  });

  it.each(seedWebhooks)('describes the %s webhook event', (callbackType) => {
    const names = Object.keys(document.webhooks ?? {});
    expect(names).toContain(callbackType);
  });

  it('describes no webhook event that is neither in the list nor marked as designed', () => {
    const webhooks = Object.entries<Record<string, any>>(document.webhooks ?? {});
    expect(webhooks.filter(([name, item]) => !seedWebhooks.includes(name) && item.post?.['x-designed'] !== true).map(([name]) => name)).toEqual([]);
  });
});
