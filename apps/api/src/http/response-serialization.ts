import build from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';
import { chunkedAnswer, type CompileSerializer, type Serialize } from './chunked-answers.js';
import type { JsonSchema } from './json-schema.js';

/**
 * Replies are serialized through the spec's response schemas (fast-json-stringify), so a
 * field the spec does not document never leaves the service. Many operations share
 * response schemas (every error shape, aliases under /api), so each is compiled once.
 * Answers with a large array are written item by item into a buffer (chunked-answers.ts).
 */
export function installResponseSerialization(app: FastifyInstance, contractOf: () => JsonSchema): void {
  const compiled = new Map<string, (data: unknown) => string | Buffer>();
  const compile: CompileSerializer = (schema) => compileSerializer(contractOf(), schema);
  app.setSerializerCompiler(({ schema }) => {
    const key = JSON.stringify(schema);
    let serialize = compiled.get(key);
    if (!serialize) {
      // Built on the first reply that needs it: building every operation's serializers up
      // front took a good part of the service's start.
      let built: ((data: unknown) => string | Buffer) | undefined;
      serialize = (data) => {
        if (!built) {
          const whole = compile(schema as JsonSchema);
          const chunked = chunkedAnswer(schema as JsonSchema, contractOf(), compile);
          built = chunked ? (value) => chunked(value, whole) : whole;
        }
        return built(data);
      };
      compiled.set(key, serialize);
    }
    // Fastify sends a buffer from a serializer as it is (its length as the content length).
    return serialize as (data: unknown) => string;
  });
}

/** A serializer of `schema`, whose `$ref`s may name the contract's schemas (`contract#/components/...`). */
export function compileSerializer(contract: JsonSchema, schema: JsonSchema): Serialize {
  // Not strict: some properties leave `type` to the schema that narrows them (an allOf of
  // each webhook event), which strict mode would warn about on every build.
  return build(schema as unknown as Parameters<typeof build>[0], { schema: { [String(contract.$id)]: contract as never }, ajv: { strict: false } }) as Serialize;
}
