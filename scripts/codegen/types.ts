import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { bundlePath, GENERATED_HEADER, typesPath } from './paths.js';

/** TypeScript types of the bundle (openapi-typescript). */
export async function generateTypes(): Promise<void> {
  // defaultNonNullable off: a request field with a default stays optional for callers.
  const ast = await openapiTS(pathToFileURL(bundlePath), { alphabetize: false, exportType: false, defaultNonNullable: false });
  mkdirSync(dirname(typesPath), { recursive: true });
  writeFileSync(typesPath, `${GENERATED_HEADER}\n${astToString(ast)}`);
}
