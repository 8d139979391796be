import { parse } from 'yaml';
import type { JsonSchema } from './json-schema.js';

/**
 * The route table's schemas reference the bundle's components as `contract#/components/...`;
 * this is that resource, registered once with the validators and the serializer.
 */
const CONTRACT_SCHEMA_ID = 'contract';

export function contractSchemaResource(bundleYaml: string): JsonSchema {
  const document = parse(bundleYaml) as { components?: { schemas?: JsonSchema } };
  return { $id: CONTRACT_SCHEMA_ID, components: { schemas: document.components?.schemas ?? {} } };
}
