import type { JsonSchema } from './json-schema.js';

/** One row of the generated route table (apps/api/src/generated/routes.ts). */
export interface RouteDefinition<Id extends string = string> {
  operationId: Id;
  method: string;
  path: string;
  /** Names of the security schemes that can authorize the operation; empty for public ones. */
  security: string[];
  params?: JsonSchema;
  query?: JsonSchema;
  body?: { required: boolean; contentTypes: string[]; schema: JsonSchema };
  responses: Record<string, { contentType: string | null; schema: JsonSchema | null }>;
}
