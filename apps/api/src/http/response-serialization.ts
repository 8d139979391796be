import build from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';
import type { JsonSchema } from './json-schema.js';

/**
 * Replies are serialized through the spec's response schemas (fast-json-stringify), so a
 * field the spec does not document never leaves the service. Many operations share
 * response schemas (every error shape, aliases under /api), so each is compiled once.
 */
export function installResponseSerialization(app: FastifyInstance, contractOf: () => JsonSchema): void {
  const compiled = new Map<string, (data: unknown) => string>();
  app.setSerializerCompiler(({ schema }) => {
    const key = JSON.stringify(schema);
    let serialize = compiled.get(key);
    if (!serialize) {
      // Built on the first reply that needs it: building every operation's serializers up
      // front took a good part of the service's start.
      let built: ((data: unknown) => string) | undefined;
      serialize = (data) => {
        if (!built) {
          const contract = contractOf();
          // Not strict: some properties leave `type` to the schema that narrows them (an allOf of
          // each webhook event), which strict mode would warn about on every build.
          built = build(schema as Parameters<typeof build>[0], { schema: { [String(contract.$id)]: contract as never }, ajv: { strict: false } }) as (data: unknown) => string;
        }
        return built(data);
      };
      compiled.set(key, serialize);
    }
    return serialize;
  });
}
