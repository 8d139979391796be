/**
 * `pnpm generate`: the one command that rebuilds everything derived from spec/.
 * 1. bundle the split spec (Redocly) into packages/contract/openapi.yaml;
 * 2. TypeScript types (openapi-typescript) into packages/contract/src/schema.ts;
 * 3. the API's Handlers interface, route table and handler index, and a 501 stub for
 *    each new operation (never overwritten).
 */
import { relative } from 'node:path';
import { bundleSpec } from './codegen/bundle.js';
import { listOperations, listScopes, loadBundle } from './codegen/operations.js';
import { repoRoot } from './codegen/paths.js';
import { generateServer } from './codegen/server.js';
import { generateTypes } from './codegen/types.js';

bundleSpec();
await generateTypes();
const bundle = loadBundle();
const ops = listOperations(bundle);
const scaffolded = generateServer(ops, listScopes(bundle));
console.log(`generated: bundle, types, ${ops.length} operations`);
for (const file of scaffolded) console.log(`scaffolded stub: ${relative(repoRoot, file)}`);
