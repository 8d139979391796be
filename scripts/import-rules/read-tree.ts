/** Reading `.ts` files from disk into the map the pure check takes (the only I/O of the check). */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

/** Folders the scan never enters, at any depth. */
const neverScanned = new Set(['node_modules', 'dist']);

/**
 * Every `.ts` file under the given folders (relative to `base`; a `*` segment stands for each
 * subfolder, as in `packages/*\/src`), keyed by its posix path relative to `base`. Folders in
 * `skip` (relative to `base`) are left out with everything under them.
 */
export function readTree(base: string, folders: string[], skip: string[] = []): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string): void => {
    if (skip.includes(folder)) return;
    for (const entry of readdirSync(join(base, folder), { withFileTypes: true })) {
      const path = folder === '.' ? entry.name : posix.join(folder, entry.name);
      if (entry.isDirectory() && !neverScanned.has(entry.name)) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.ts')) files.set(path, readFileSync(join(base, path), 'utf8'));
    }
  };
  for (const folder of folders.flatMap((pattern) => expand(base, pattern))) walk(folder);
  return files;
}

/** `packages/*\/src` → `packages/client/src`, `packages/contract/src`: those that exist. */
function expand(base: string, pattern: string): string[] {
  let folders = ['.'];
  for (const segment of pattern.split('/')) {
    folders = folders.flatMap((folder) => {
      if (segment !== '*') return [posix.join(folder, segment)];
      return readdirSync(join(base, folder), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => posix.join(folder, entry.name));
    });
  }
  return folders.filter((folder) => existsSync(join(base, folder)));
}
