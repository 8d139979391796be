import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { openApiDocumentPath } from '../src/index.js';

const doc = parse(readFileSync(openApiDocumentPath, 'utf8'));

/** The union every listed event (`GET /v1/webhook_events`) is serialized with must hold every webhook's event schema. */
describe('the WebhookEvent union', () => {
  const members = new Set<string>((doc.components.schemas.WebhookEvent.oneOf as { $ref: string }[]).map((m) => m.$ref));
  it.each(Object.keys(doc.webhooks))('holds the event schema of %s', (type) => {
    const schema = doc.webhooks[type].post.requestBody.content['application/json'].schema;
    expect(members).toContain(schema.$ref);
  });
  it('has one member per callback type of CallbackType', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...doc.components.schemas.CallbackType.enum].sort());
  });
});
