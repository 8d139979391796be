/** The contract: types generated from the bundled OpenAPI document, and where that document lives. */
import { fileURLToPath } from 'node:url';

export type { paths, components, operations, webhooks } from './schema.js';

/** Absolute path of the bundled OpenAPI document (YAML). */
export const openApiDocumentPath = fileURLToPath(new URL('../openapi.yaml', import.meta.url));
