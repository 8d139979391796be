/**
 * `pnpm build`: the service as JavaScript, into dist/ (gitignored), for `pnpm start`.
 *
 * One ES module per entry, bundled by esbuild: the app's TypeScript, the workspace packages it
 * imports (`@pharmacy/contract`, `@pharmacy/client` export TypeScript source, which Node
 * cannot load) and the npm packages it imports are inlined, but for the native SQLite driver
 * (`external` below); it, Node's modules and what the code loads through `createRequire` (pg,
 * only on PostgreSQL; Redoc's script, read as a file) stay imports, resolved at run time from
 * apps/api/node_modules.
 *
 * Files read at run time relative to a module (`new URL('./docs.html', import.meta.url)`, the
 * reference data, the contract's openapi.yaml, `createRequire(import.meta.url)`) keep resolving
 * where they do from source: in each bundled module `import.meta.url` is rewritten to that
 * module's source file URL, relative to the bundle (dist/ sits in apps/api/, beside src/).
 *
 *   node scripts/build.mjs             build
 *   node scripts/build.mjs --if-stale  build only when a bundled input (or this script, or
 *                                      esbuild) changed since the last build (`pnpm start`)
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import * as esbuild from 'esbuild';
import { parse } from 'yaml';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(apiRoot, 'dist');
const stateFile = join(dist, 'build-inputs.json');
const entryPoints = { server: join(apiRoot, 'src', 'server.ts') };
const self = fileURLToPath(import.meta.url);
const openApiDocumentPath = fileURLToPath(import.meta.resolve('@pharmacy/contract/openapi.yaml'));
const prebuiltModule = join(apiRoot, 'src', 'http', 'contract-schemas-prebuilt.ts');

/**
 * src/http/contract-schemas-prebuilt.ts in the bundle: the bundle's component schemas as JSON
 * (used at run time only while openapi.yaml still has this SHA-256), if JSON holds them exactly.
 */
function prebuiltContractSchemas() {
  const text = readFileSync(openApiDocumentPath, 'utf8');
  const schemas = parse(text)?.components?.schemas ?? {};
  const json = JSON.stringify(schemas);
  if (!isDeepStrictEqual(JSON.parse(json), schemas)) {
    console.error('build: the contract\'s schemas do not survive JSON; the service will parse the YAML');
    return 'export const prebuiltContractSchemas = undefined;\n';
  }
  const sha256 = createHash('sha256').update(text).digest('hex');
  return `export const prebuiltContractSchemas = { sha256: ${JSON.stringify(sha256)}, json: ${JSON.stringify(json)} };\n`;
}

/** Whether dist/ is the build of the current inputs: every input of the last build has its recorded mtime. */
function upToDate() {
  let state;
  try {
    state = JSON.parse(readFileSync(stateFile, 'utf8'));
  } catch {
    return false;
  }
  if (state.esbuild !== esbuild.version || JSON.stringify(state.entryPoints) !== JSON.stringify(Object.keys(entryPoints))) return false;
  for (const name of Object.keys(entryPoints)) {
    try {
      statSync(join(dist, `${name}.js`));
    } catch {
      return false;
    }
  }
  for (const [file, mtimeMs] of Object.entries(state.inputs)) {
    try {
      if (statSync(file).mtimeMs !== mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * npm packages left out of the bundle: the SQLite driver finds its compiled binary beside its
 * own files. Every other package is bundled. Loaded from node_modules, they were some 1,100
 * files: each CommonJS one resolved (package.json reads, stats, realpaths), compiled apart,
 * and scanned for the names an ES module may import, and the pure-ESM ones (Kysely alone is
 * some 300 files) each a module record. Bundled, the process started in 662 and 695 ms
 * instead of 958 and 911 (medians of two alternated `bench:start` runs of 6 on 2026-11-28)
 * and idled at 101.8 MB instead of 107-108.
 */
const external = ['@photostructure/sqlite'];

/**
 * The CommonJS packages in an ES module: esbuild turns their `require` of Node's modules
 * into a call of `require`, which an ES module does not have; this gives it one.
 */
const requireForCommonJs = "import { createRequire as createRequireOfBundle } from 'node:module';\nconst require = createRequireOfBundle(import.meta.url);";

/**
 * Workspace and npm packages are bundled but `external`; Node's modules stay imports.
 * TypeScript files of this repository get their own `import.meta.url`.
 */
const workspacePlugin = {
  name: 'pharmacy-workspace',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (isAbsolute(args.path) || args.path.startsWith('@pharmacy/')) return undefined;
      if (args.path.startsWith('node:') || builtinModules.includes(args.path.split('/')[0])) return { path: args.path, external: true };
      if (external.some((name) => args.path === name || args.path.startsWith(`${name}/`))) return { path: args.path, external: true };
      return undefined;
    });
    build.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      if (args.path.split(sep).includes('node_modules')) return undefined;
      if (args.path === prebuiltModule) return { contents: prebuiltContractSchemas(), loader: 'js' };
      const source = readFileSync(args.path, 'utf8');
      const url = JSON.stringify(relative(dist, args.path).split(sep).join('/'));
      return { contents: source.replaceAll('import.meta.url', `new URL(${url}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

if (process.argv.includes('--if-stale') && upToDate()) process.exit(0);

const started = Date.now();
rmSync(dist, { recursive: true, force: true });
const result = await esbuild.build({
  entryPoints,
  absWorkingDir: apiRoot,
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // No keepNames: it wraps every function the code creates in a call that redefines its
  // `name`, closures on the hot path included (a quarter of an uncached read's throughput).
  // Names stay as written anyway, but for a few that two modules share, which get a number
  // (`trim2`); no error class is among them, and the source map (linked) names them all.
  keepNames: false,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  plugins: [workspacePlugin],
  banner: { js: `// Built by apps/api/scripts/build.mjs from src/: do not edit.\n${requireForCommonJs}` },
});

const inputs = {};
for (const file of [...Object.keys(result.metafile.inputs).map((p) => join(apiRoot, p)), self, join(apiRoot, 'package.json'), openApiDocumentPath]) {
  inputs[file] = statSync(file).mtimeMs;
}
writeFileSync(stateFile, `${JSON.stringify({ esbuild: esbuild.version, entryPoints: Object.keys(entryPoints), inputs }, null, 2)}\n`);
console.error(`built ${Object.keys(entryPoints).map((n) => `dist/${n}.js`).join(', ')} (${Object.keys(inputs).length} inputs) in ${Date.now() - started} ms`);
