import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** A key file of the embedded database: `<name>` beside the database file. */
export function keyFileBeside(databaseUrl: string, name: string): string {
  return join(dirname(resolve(databaseUrl.replace(/^file:/, ''))), name);
}

/**
 * The 32-byte key kept in `<name>` beside the embedded database (base64, mode 0600),
 * generated the first time it is needed. Processes starting together agree on one: the
 * file is created exclusively, and a process that loses the race reads the winner's.
 */
export function embeddedKey(databaseUrl: string, name: string): Buffer {
  const file = keyFileBeside(databaseUrl, name);
  const read = (): Buffer => {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} must hold the base64 of 32 bytes`);
    return key;
  };
  try {
    return read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    const fd = openSync(file, 'wx', 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString('base64')}\n`);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    // Another process made it first: read theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return read();
}
