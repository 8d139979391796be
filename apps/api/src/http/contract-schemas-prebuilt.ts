/**
 * The bundle's `components.schemas` as JSON, with the SHA-256 of the YAML they were read
 * from, when the service runs built (`scripts/build.mjs` replaces this module in dist/):
 * JSON.parse reads them in milliseconds where parsing the 1 MB YAML takes about a second.
 * Run from source, there is none and the YAML is parsed.
 */
export const prebuiltContractSchemas: { sha256: string; json: string } | undefined = undefined;
