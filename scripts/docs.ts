/**
 * `pnpm docs`: the Redoc HTML reference, built from the bundle into dist/docs/index.html
 * (or the path given as the first argument), with the icons it shows beside it. The page
 * loads nothing from elsewhere: Redoc's scripts are inlined (not taken from Redocly's
 * CDN), the attribution's image and the page's icon are files of the folder.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { bundlePath, repoRoot } from './codegen/paths.js';

const output = resolve(process.argv[2] ?? join(repoRoot, 'dist', 'docs', 'index.html'));
/** The same icons the service serves with its own docs page (apps/api/src/docs/). */
const icons = join(repoRoot, 'apps', 'api', 'src', 'docs');

execFileSync(join(repoRoot, 'node_modules', '.bin', 'redocly'), ['build-docs', bundlePath, '-o', output, '--inlineBundle'], {
  stdio: 'inherit',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});

// Redoc's side menu shows an image from Redocly's CDN whatever the options: point it at a file beside the page.
const CDN_LOGOS = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg/g;
const built = readFileSync(output, 'utf8');
if (!CDN_LOGOS.test(built)) throw new Error(`Redoc no longer shows ${CDN_LOGOS.source}: check what the new version loads from outside (scripts/docs.ts)`);
const page = built
  .replace(CDN_LOGOS, 'docs-logo.svg')
  .replace(/<head>/, '<head>\n  <link rel="icon" href="favicon.svg" type="image/svg+xml">');
writeFileSync(output, page);
for (const icon of ['docs-logo.svg', 'favicon.svg']) copyFileSync(join(icons, icon), join(dirname(output), icon));
console.log(`docs: ${relative(repoRoot, output)}`);
