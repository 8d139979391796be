/**
 * A deprecated operation's dates (scripts/codegen/deprecation.ts, spec/VERSIONING.md): the
 * route table carries `deprecated: true` with `x-deprecated-at` and `x-sunset`, and
 * `pnpm generate` refuses a deprecation that is half declared.
 */
import { describe, expect, it } from 'vitest';
import { deprecationOf } from '../../../scripts/codegen/deprecation.js';
import { listOperations } from '../../../scripts/codegen/operations.js';

const where = 'operation getWidget (GET /v1/widget)';

describe('the deprecation of an operation', () => {
  it.each([
    ['not deprecated', {}, undefined],
    ['deprecated with both dates', { deprecated: true, 'x-deprecated-at': '2027-01-15', 'x-sunset': '2027-06-30' }, { deprecatedAt: '2027-01-15', sunset: '2027-06-30' }],
    ['dates a YAML 1.1 parser made Dates of', { deprecated: true, 'x-deprecated-at': new Date('2027-01-15T00:00:00Z'), 'x-sunset': new Date('2027-06-30T00:00:00Z') }, { deprecatedAt: '2027-01-15', sunset: '2027-06-30' }],
  ])('%s', (_name, op, expected) => {
    expect(deprecationOf(op, where)).toEqual(expected);
  });

  it.each([
    ['deprecated without dates', { deprecated: true }, /needs `x-deprecated-at` and `x-sunset`/],
    ['deprecated without a sunset', { deprecated: true, 'x-deprecated-at': '2027-01-15' }, /needs `x-deprecated-at` and `x-sunset`/],
    ['a sunset that is not a date', { deprecated: true, 'x-deprecated-at': '2027-01-15', 'x-sunset': 'next year' }, /needs/],
    ['a day that does not exist', { deprecated: true, 'x-deprecated-at': '2027-02-30', 'x-sunset': '2027-06-30' }, /needs/],
    ['a sunset before the deprecation', { deprecated: true, 'x-deprecated-at': '2027-06-30', 'x-sunset': '2027-01-15' }, /must come after/],
    ['dates without deprecated: true', { 'x-sunset': '2027-06-30' }, /belong to a deprecated operation/],
  ])('is refused: %s', (_name, op, message) => {
    expect(() => deprecationOf(op, where)).toThrow(message);
  });

  it('reaches the route table through listOperations', () => {
    const response = { '200': { description: 'OK' } };
    const doc = {
      openapi: '3.1.0',
      paths: {
        '/v1/widget': {
          get: { operationId: 'getWidget', tags: ['Widgets'], 'x-area': 'widgets', 'x-phi': false, deprecated: true, 'x-deprecated-at': '2027-01-15', 'x-sunset': '2027-06-30', responses: response },
          put: { operationId: 'createWidget', tags: ['Widgets'], 'x-area': 'widgets', 'x-phi': false, responses: response },
        },
      },
    };
    const ops = Object.fromEntries(listOperations(doc).map((op) => [op.operationId, op.deprecation]));
    expect(ops).toEqual({ getWidget: { deprecatedAt: '2027-01-15', sunset: '2027-06-30' }, createWidget: undefined });
  });
});
