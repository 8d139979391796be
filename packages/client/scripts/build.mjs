/**
 * `pnpm build` (and `prepack`): the package as it is published, into dist/. JavaScript by tsc
 * (one module per source file); declarations bundled by rollup-plugin-dts into
 * dist/index.d.ts and dist/webhooks.d.ts with the contract's generated types inlined, since
 * `@pharmacy/contract` exists only in this workspace. The workspace itself imports src/.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(packageRoot, 'dist');
const require = createRequire(import.meta.url);
const { dependencies } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'));
const runtimeDependencies = Object.keys(dependencies ?? {});

rmSync(dist, { recursive: true, force: true });

execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(packageRoot, 'tsconfig.build.json')], { stdio: 'inherit' });

const bundle = await rollup({
  input: { index: join(packageRoot, 'src/index.ts'), webhooks: join(packageRoot, 'src/webhooks.ts') },
  // Only the runtime dependencies stay imports; everything else (the contract) is inlined.
  external: (id) => runtimeDependencies.some((name) => id === name || id.startsWith(`${name}/`)) || id.startsWith('node:'),
  plugins: [dts({ respectExternal: true, tsconfig: join(packageRoot, 'tsconfig.build.json') })],
});
await bundle.write({
  dir: dist,
  format: 'es',
  entryFileNames: '[name].d.ts',
  chunkFileNames: '[name].d.ts',
  // The generated types, shared by both entries, in a file of their own.
  manualChunks: (id) => (/[\\/](packages|@pharmacy)[\\/]contract[\\/]/.test(id) ? 'contract' : undefined),
});
await bundle.close();

// What is published must import no workspace package (comments may still name one).
for (const file of readdirSync(dist)) {
  if (/(from\s*|import\s*\(\s*)['"]@pharmacy\//.test(readFileSync(join(dist, file), 'utf8'))) {
    throw new Error(`build: dist/${file} imports a workspace package`);
  }
}
console.log(`built ${readdirSync(dist).length} files into dist/`);
