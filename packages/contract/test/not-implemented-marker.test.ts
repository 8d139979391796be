/**
 * `x-not-implemented: true` (scripts/codegen/not-implemented.ts): the check that holds the
 * marker to the handlers fires on each disagreement, the service's handlers agree with the
 * spec today, and the bundle shows a marked operation (a Redoc badge and a note).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { decorateBundle } from '../../../scripts/codegen/bundle.js';
import {
  NOT_IMPLEMENTED_BADGE,
  NOT_IMPLEMENTED_NOTE,
  notImplementedMarkers,
  notImplementedMismatches,
} from '../../../scripts/codegen/not-implemented.js';
import { listOperations } from '../../../scripts/codegen/operations.js';
import { apiHandlersDir } from '../../../scripts/codegen/paths.js';
import { loadOpenApiDocument } from '../src/response-validator.js';

/** What `pnpm generate` scaffolds for a new operation (scripts/codegen/server.ts). */
const STUB = `import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

export const listWidgets: Handlers['listWidgets'] = async () => {
  throw notImplemented('listWidgets');
};
`;
const REAL = `import type { Handlers } from '../../generated/handlers.js';

export const listWidgets: Handlers['listWidgets'] = async (_input, ctx) => ({ status: 200, body: await ctx.services.widgets.list() });
`;

const fixtures = mkdtempSync(join(tmpdir(), 'not-implemented-'));
afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

function handlersWith(name: string, source: string): string {
  const dir = join(fixtures, name);
  mkdirSync(join(dir, 'widgets'), { recursive: true });
  writeFileSync(join(dir, 'widgets', 'listWidgets.ts'), source);
  return dir;
}

describe('the x-not-implemented check', () => {
  it.each([
    ['a stub without the marker fails', { handler: STUB, marked: false, want: /widgets\/listWidgets\.ts still throws notImplemented\(\), but listWidgets has no `x-not-implemented: true`/ }],
    ['a marker on a real handler fails', { handler: REAL, marked: true, want: /listWidgets is marked `x-not-implemented: true`, but widgets\/listWidgets\.ts is implemented/ }],
    ['a marked stub passes', { handler: STUB, marked: true, want: undefined }],
    ['a real handler without the marker passes', { handler: REAL, marked: false, want: undefined }],
  ])('%s', (name, { handler, marked, want }) => {
    const dir = handlersWith(name.replace(/\W+/g, '-'), handler);
    const problems = notImplementedMismatches([{ operationId: 'listWidgets', area: 'widgets', notImplemented: marked }], dir);
    if (want) expect(problems).toEqual([expect.stringMatching(want)]);
    else expect(problems).toEqual([]);
  });

  it('agrees with the service: every operation is implemented and none is marked', () => {
    const bundle = loadOpenApiDocument();
    const markers = notImplementedMarkers(bundle);
    const ops = listOperations(bundle).map(({ operationId, area }) => ({ operationId, area, notImplemented: markers.get(operationId) ?? false }));
    expect(ops.length).toBeGreaterThan(80);
    expect(notImplementedMismatches(ops, apiHandlersDir)).toEqual([]);
  });

  it('refuses a marker that is not a boolean', () => {
    const doc = { paths: { '/widgets': { get: { operationId: 'listWidgets', 'x-not-implemented': 'yes' } } } };
    expect(() => notImplementedMarkers(doc)).toThrow(/`x-not-implemented` must be true or false, not "yes"/);
  });
});

describe('a marked operation in the bundle', () => {
  const source = {
    openapi: '3.1.0',
    info: { title: 'Widgets', version: '1.0.0' },
    paths: {
      '/widgets': {
        get: { operationId: 'listWidgets', summary: 'List widgets', description: 'Lists the widgets.', 'x-not-implemented': true, responses: { '200': { description: 'The widgets.' } } },
        post: { operationId: 'createWidget', summary: 'Create a widget', responses: { '201': { description: 'Created.' } } },
      },
    },
  };
  const bundled = parse(decorateBundle(stringify(source)));

  it('carries the Redoc badge and the note before its description', () => {
    expect(bundled.paths['/widgets'].get['x-badges']).toEqual([NOT_IMPLEMENTED_BADGE]);
    expect(bundled.paths['/widgets'].get.description).toBe(`${NOT_IMPLEMENTED_NOTE}\n\nLists the widgets.`);
  });

  it('leaves an implemented operation as it is, but for its samples', () => {
    const { 'x-codeSamples': samples, ...rest } = bundled.paths['/widgets'].post;
    expect(rest).toEqual(source.paths['/widgets'].post);
    expect(samples).toHaveLength(2);
  });
});
