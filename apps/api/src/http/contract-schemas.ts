import { createHash } from 'node:crypto';
import { parse } from 'yaml';
import { prebuiltContractSchemas } from './contract-schemas-prebuilt.js';
import type { JsonSchema } from './json-schema.js';

/**
 * The route table's schemas reference the bundle's components as `contract#/components/...`;
 * this is that resource, registered once with the validators and the serializer.
 */
const CONTRACT_SCHEMA_ID = 'contract';

export function contractSchemaResource(bundleYaml: string): JsonSchema {
  return { $id: CONTRACT_SCHEMA_ID, components: { schemas: componentSchemas(bundleYaml) } };
}

/** The bundle's `components.schemas`: the build's JSON copy when it was made from this very text, else parsed. */
function componentSchemas(bundleYaml: string): JsonSchema {
  const prebuilt = prebuiltContractSchemas;
  if (prebuilt && prebuilt.sha256 === createHash('sha256').update(bundleYaml).digest('hex')) {
    return JSON.parse(prebuilt.json) as JsonSchema;
  }
  const document = parse(bundleYaml) as { components?: { schemas?: JsonSchema } };
  return document.components?.schemas ?? {};
}
