import build from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';
import type { JsonSchema } from './json-schema.js';

/**
 * Replies are serialized through the spec's response schemas (fast-json-stringify), so a
 * field the spec does not document never leaves the service. Many operations share
 * response schemas (every error shape, aliases under /api), so each is compiled once.
 */
export function installResponseSerialization(app: FastifyInstance, contract: JsonSchema): void {
  const compiled = new Map<string, (data: unknown) => string>();
  app.setSerializerCompiler(({ schema }) => {
    const key = JSON.stringify(schema);
    let serialize = compiled.get(key);
    if (!serialize) {
      serialize = build(schema as Parameters<typeof build>[0], { schema: { [String(contract.$id)]: contract as never } }) as (
        data: unknown,
      ) => string;
      compiled.set(key, serialize);
    }
    return serialize;
  });
}
