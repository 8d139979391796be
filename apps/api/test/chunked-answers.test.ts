// Answers with a large array are written item by item into one buffer (http/chunked-answers.ts):
// the same bytes as the whole answer's serializer, for the contract's schemas and for
// shapes it may grow (fields before and after the array, nested references).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chunkedAnswer, CHUNKED_MIN_CHARS } from '../src/http/chunked-answers.js';
import { contractSchemaResource } from '../src/http/contract-schemas.js';
import type { JsonSchema } from '../src/http/json-schema.js';
import { compileSerializer } from '../src/http/response-serialization.js';
import { SAMPLE } from './support/consults.js';
import { startTestAppWithCustomers, type TestApp } from './support/test-app.js';

const contract = contractSchemaResource(readFileSync(join(import.meta.dirname, '..', '..', '..', 'packages', 'contract', 'openapi.yaml'), 'utf8'));

/** A contract of made-up schemas, shaped like the real one (`$id` contract, components). */
const madeUp: JsonSchema = {
  $id: 'contract',
  components: {
    schemas: {
      Note: { type: 'object', required: ['id', 'text'], additionalProperties: false, properties: { id: { type: 'string' }, text: { type: 'string' }, at: { type: 'string', format: 'date-time' } } },
      Page: { type: 'object', properties: { next: { type: ['string', 'null'] }, count: { type: 'integer' } } },
      NoteList: { type: 'array', items: { $ref: '#/components/schemas/Note' } },
      Wrapped: {
        type: 'object',
        additionalProperties: false,
        required: ['kind', 'notes'],
        properties: {
          kind: { type: 'string' },
          notes: { $ref: '#/components/schemas/NoteList' },
          page: { $ref: '#/components/schemas/Page' },
          total: { type: 'integer' },
        },
      },
      Open: { type: 'object', additionalProperties: true, properties: { notes: { type: 'array', items: { $ref: '#/components/schemas/Note' } } } },
      Either: { oneOf: [{ $ref: '#/components/schemas/NoteList' }, { type: 'string' }] },
      TwoLists: { type: 'object', properties: { a: { $ref: '#/components/schemas/NoteList' }, b: { $ref: '#/components/schemas/NoteList' } } },
    },
  },
};

function serializers(within: JsonSchema, name: string) {
  const schema = { $ref: `contract#/components/schemas/${name}` };
  const compile = (s: JsonSchema) => compileSerializer(within, s);
  const whole = compile(schema);
  const chunked = chunkedAnswer(schema, within, compile);
  return { whole, chunked: chunked && ((data: unknown) => chunked(data, whole)) };
}

/** Notes with a quote, a backslash, a non-ASCII name and a field no schema has, to be left out. */
function notes(count: number) {
  return Array.from({ length: count }, (_, i) => ({ id: `n${i}`, text: i % 7 === 0 ? `say "hi" \\ Zoë ${'é'.repeat(i % 5)} 日本` : `note ${i}`, at: new Date(Date.UTC(2030, 0, 1, 0, i)).toISOString(), secret: 'never' }));
}

describe('answers written in pieces', () => {
  it('are the bytes of the whole answer, the fields around the array in the schema order, undocumented fields left out', () => {
    const { whole, chunked } = serializers(madeUp, 'Wrapped');
    for (const count of [1_000, 20_000]) {
      const data = { total: count, page: { next: null, count }, notes: notes(count), kind: 'k', extra: 'never' };
      const written = chunked!(data);
      expect(Buffer.isBuffer(written)).toBe(true);
      expect((written as Buffer).toString('utf8')).toBe(whole(data));
      expect((written as Buffer).toString('utf8')).not.toContain('never');
      expect(JSON.parse((written as Buffer).toString('utf8')).notes).toHaveLength(count);
    }
    // Optional fields absent before and after the array.
    const bare = { kind: 'k', notes: notes(2_000) };
    expect((chunked!(bare) as Buffer).toString()).toBe(whole(bare));
  });

  it('write an answer that is an array, and leave smaller ones to the whole serializer', () => {
    const { whole, chunked } = serializers(madeUp, 'NoteList');
    const large = notes(5_000);
    expect((chunked!(large) as Buffer).toString()).toBe(whole(large));
    // Answers under CHUNKED_MIN_CHARS (estimated by the first item's length), and arrays under 32 items, stay strings.
    const firstChars = whole(notes(1)).length - 2;
    const under = Math.floor(CHUNKED_MIN_CHARS / firstChars) - 1;
    for (const small of [notes(under), notes(31).map((n) => ({ ...n, text: 'x'.repeat(CHUNKED_MIN_CHARS) }))]) {
      expect(typeof chunked!(small)).toBe('string');
      expect(chunked!(small)).toBe(whole(small));
    }
    expect(Buffer.isBuffer(chunked!(notes(under + 2)))).toBe(true);
  });

  it('refuse what the whole serializer refuses (a missing required field)', () => {
    const { whole, chunked } = serializers(madeUp, 'Wrapped');
    const data = { kind: 'k', notes: notes(3_000).map((n, i) => (i === 2_500 ? { id: n.id } : n)) };
    expect(() => whole(data)).toThrow(/text/);
    expect(() => chunked!(data)).toThrow(/text/);
  });

  it('are not used for schemas whose fields are more than their listed properties, or with two arrays', () => {
    for (const name of ['Open', 'Either', 'TwoLists', 'Note']) expect(serializers(madeUp, name).chunked).toBeUndefined();
  });

  it("are the bytes of the contract's month of schedule slots", () => {
    const { whole, chunked } = serializers(contract, 'ScheduleSlotList');
    expect(chunked).toBeDefined();
    const start = Date.UTC(2030, 0, 15, 15);
    const data = {
      availabilities: Array.from({ length: 5_000 }, (_, i) => ({
        start: new Date(start + i * 1_800_000).toISOString(),
        end: new Date(start + (i + 1) * 1_800_000).toISOString(),
        provider_id: (i % 20).toString(16).padStart(24, 'b'),
        provider_name: `Provider ${i % 20}`,
        duration: 30,
      })),
    };
    const written = chunked!(data) as Buffer;
    expect(written.toString()).toBe(whole(data));
    expect(written.length).toBe(Buffer.byteLength(whole(data)));
  });
});

describe('a large answer of the service', () => {
  let t: TestApp | undefined;
  afterAll(async () => t?.close());

  it("leaves as the whole serializer's bytes, its length the content length: a month of the sandbox's schedule", async () => {
    const started = await startTestAppWithCustomers();
    t = started.t;
    const start = new Date(Date.now() + 86_400_000);
    start.setUTCHours(0, 0, 0, 0);
    const end = new Date(start.getTime() + 31 * 86_400_000);
    const query = new URLSearchParams({ start: start.toISOString(), end: end.toISOString(), questionnaire: SAMPLE.intake, state: 'CA', duration: '10' });
    const response = await fetch(`${t.baseUrl}/v0/schedule?${query}`, { headers: { authorization: `ApiKey ${started.acme.sandbox_api_key}` } });
    expect(response.status).toBe(200);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = bytes.toString('utf8');
    // Large enough to be written item by item, whose bytes are the whole serializer's.
    expect(text.length).toBeGreaterThan(CHUNKED_MIN_CHARS);
    expect(text).toBe(serializers(contract, 'ScheduleSlotList').whole(JSON.parse(text)));
  });
});
