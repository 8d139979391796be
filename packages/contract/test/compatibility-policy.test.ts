/**
 * What the compatibility gate (scripts/check-compatibility.ts, spec/VERSIONING.md) calls
 * breaking and what additive, one change at a time, and the ids it names them by. The gate
 * itself proves the same on its fixture pair in CI; this table covers every rule of the policy.
 */
import { describe, expect, it } from 'vitest';
import { compareBundles } from '../../../scripts/compatibility/breaking-changes.js';
import { listedBreakingChanges } from '../../../scripts/compatibility/changelog.js';

type Doc = Record<string, any>;

function base(): Doc {
  return {
    openapi: '3.1.0',
    info: { title: 'Policy', version: '1.0.0' },
    paths: {
      '/v1/pet/{pet_token}': {
        parameters: [{ name: 'pet_token', in: 'path', required: true, schema: { type: 'string' } }],
        get: {
          operationId: 'getPet',
          parameters: [{ $ref: '#/components/parameters/Fields' }],
          responses: { '200': { description: 'The pet.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } }, '404': { description: 'None.' } },
        },
        post: {
          operationId: 'updatePet',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/PetUpdate' } } } },
          responses: { '200': { description: 'Updated.' } },
        },
      },
      '/v1/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'The pets.' } } } },
    },
    webhooks: {
      PET: {
        post: {
          operationId: 'petEvent',
          parameters: [{ name: 'X-Signature', in: 'header', required: true, schema: { type: 'string' } }],
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { pet_token: { type: 'string' }, kind: { type: 'string', enum: ['CREATED', 'SOLD'] } } } } } },
          responses: { '200': { description: 'Received.' } },
        },
      },
    },
    components: {
      parameters: { Fields: { name: 'fields', in: 'query', schema: { type: 'string' } } },
      schemas: {
        Pet: {
          type: 'object',
          required: ['pet_token', 'status'],
          properties: { pet_token: { type: 'string' }, status: { type: 'string', enum: ['available', 'sold'] }, name: { type: ['string', 'null'] }, age: { type: 'integer' } },
        },
        PetUpdate: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', maxLength: 50, pattern: '^[a-z]+$' }, kind: { type: 'string', enum: ['cat', 'dog'] }, age: { type: 'integer' } },
        },
      },
    },
  };
}

const GET = 'GET /v1/pet/{pet_token}';
const POST = 'POST /v1/pet/{pet_token}';
const RESPONSE = `${GET} response.200.application/json`;
const REQUEST = `${POST} request.application/json`;
const pet = (d: Doc) => d.components.schemas.Pet;
const update = (d: Doc) => d.components.schemas.PetUpdate;

/** [change, mutation of the base, the ids and verdicts the gate reports] */
const table: [string, (d: Doc) => void, Record<string, string>][] = [
  // Breaking
  ['a removed response field', (d) => delete pet(d).properties.age, { [`${RESPONSE}.properties.age`]: 'breaking' }],
  ['a response field no longer always present', (d) => (pet(d).required = ['pet_token']), { [`${RESPONSE}.required.status`]: 'breaking' }],
  ['a removed response enum value', (d) => (pet(d).properties.status.enum = ['available']), { [`${RESPONSE}.properties.status.enum.sold`]: 'breaking' }],
  ['a response type that allows null', (d) => (pet(d).properties.pet_token.type = ['string', 'null']), { [`${RESPONSE}.properties.pet_token.type`]: 'breaking' }],
  ['a changed response type', (d) => (pet(d).properties.age.type = 'string'), { [`${RESPONSE}.properties.age.type`]: 'breaking' }],
  ['a newly required request field', (d) => update(d).required.push('age'), { [`${REQUEST}.required.age`]: 'breaking' }],
  ['a removed request field', (d) => delete update(d).properties.age, { [`${REQUEST}.properties.age`]: 'breaking' }],
  ['a narrowed request enum', (d) => (update(d).properties.kind.enum = ['cat']), { [`${REQUEST}.properties.kind.enum.dog`]: 'breaking' }],
  ['a stricter request pattern', (d) => (update(d).properties.name.pattern = '^[a-c]+$'), { [`${REQUEST}.properties.name.pattern`]: 'breaking' }],
  ['a shorter request maxLength', (d) => (update(d).properties.name.maxLength = 20), { [`${REQUEST}.properties.name.maxLength`]: 'breaking' }],
  ['a narrowed request type', (d) => (update(d).properties.name.type = 'integer'), { [`${REQUEST}.properties.name.type`]: 'breaking' }],
  ['a parameter that becomes required', (d) => (d.components.parameters.Fields.required = true), { [`${GET} parameters.query.fields.required`]: 'breaking' }],
  ['a new required parameter', (d) => d.paths['/v1/pet/{pet_token}'].get.parameters.push({ name: 'view', in: 'query', required: true, schema: { type: 'string' } }), { [`${GET} parameters.query.view`]: 'breaking' }],
  ['a removed parameter', (d) => (d.paths['/v1/pet/{pet_token}'].get.parameters = []), { [`${GET} parameters.query.fields`]: 'breaking' }],
  ['a removed operation', (d) => delete d.paths['/v1/pets'], { 'GET /v1/pets': 'breaking' }],
  ['a removed response status', (d) => delete d.paths['/v1/pet/{pet_token}'].get.responses['404'], { [`${GET} response.404`]: 'breaking' }],
  ['a removed event type', (d) => delete d.webhooks.PET, { 'WEBHOOK PET': 'breaking' }],
  ['a removed event field', (d) => delete d.webhooks.PET.post.requestBody.content['application/json'].schema.properties.pet_token, { 'WEBHOOK PET payload.application/json.properties.pet_token': 'breaking' }],
  ['a removed event header', (d) => (d.webhooks.PET.post.parameters = []), { 'WEBHOOK PET payload.header.X-Signature': 'breaking' }],
  // Additive
  ['a new optional request field', (d) => (update(d).properties.colour = { type: 'string' }), { [`${REQUEST}.properties.colour`]: 'additive' }],
  ['a new response field', (d) => (pet(d).properties.colour = { type: 'string' }), { [`${RESPONSE}.properties.colour`]: 'additive' }],
  ['a new response enum value', (d) => pet(d).properties.status.enum.push('pending'), { [`${RESPONSE}.properties.status.enum.pending`]: 'additive' }],
  ['a response type that allows less', (d) => (pet(d).properties.name.type = 'string'), { [`${RESPONSE}.properties.name.type`]: 'additive' }],
  ['a wider request enum', (d) => update(d).properties.kind.enum.push('bird'), { [`${REQUEST}.properties.kind.enum.bird`]: 'additive' }],
  ['a new optional parameter', (d) => d.paths['/v1/pet/{pet_token}'].get.parameters.push({ name: 'view', in: 'query', schema: { type: 'string' } }), { [`${GET} parameters.query.view`]: 'additive' }],
  ['a new operation', (d) => (d.paths['/v1/pets'].put = { operationId: 'createPet', responses: { '200': { description: 'Created.' } } }), { 'PUT /v1/pets': 'additive' }],
  ['a new event type', (d) => (d.webhooks.PET_SOLD = d.webhooks.PET), { 'WEBHOOK PET_SOLD': 'additive' }],
  ['a new event enum value', (d) => d.webhooks.PET.post.requestBody.content['application/json'].schema.properties.kind.enum.push('LOST'), { 'WEBHOOK PET payload.application/json.properties.kind.enum.LOST': 'additive' }],
  // Documentation only: no change at all
  ['descriptions, summaries and examples', (d) => {
    d.paths['/v1/pets'].get.description = 'Lists pets.';
    pet(d).properties.age.description = 'In years.';
    pet(d).examples = [{ pet_token: 'pet_1', status: 'sold' }];
  }, {}],
  ['x- extensions', (d) => {
    d.paths['/v1/pets'].get['x-codeSamples'] = [{ lang: 'shell', source: 'curl /v1/pets' }];
    pet(d)['x-designed'] = true;
  }, {}],
];

describe('the compatibility policy', () => {
  it.each(table)('%s', (_name, mutate, expected) => {
    const head = base();
    mutate(head);
    const found = Object.fromEntries(compareBundles(base(), head).map((c) => [c.id, c.verdict]));
    expect(found).toEqual(expected);
  });
});

describe("the changelog's list of breaking changes", () => {
  it('is the backticked ids of ### Breaking under ## [Unreleased], outside comments', () => {
    const changelog = [
      '# Changelog',
      '## [Unreleased]',
      '### Added',
      '- `GET /v1/added` is new.',
      '### Breaking',
      '- `GET /v1/pets` is gone; `fields` is required: `GET /v1/pet/{pet_token} parameters.query.fields.required`.',
      '<!-- `POST /v1/commented` -->',
      '### Fixed',
      '- `GET /v1/fixed`',
      '## [1.0.0] - 2026-01-01',
      '### Breaking',
      '- `GET /v1/released`',
    ].join('\n');
    expect([...listedBreakingChanges(changelog)].sort()).toEqual(['GET /v1/pet/{pet_token} parameters.query.fields.required', 'GET /v1/pets']);
  });
});
