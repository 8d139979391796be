import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomToken } from '../tokens.js';

/**
 * Where media files' bytes live, by key (the file's id). The service reads and writes
 * through this interface only; signed addresses are served by the service itself whatever
 * the store, so every upload passes the check.
 */
export interface MediaStore {
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The bytes, or undefined when the store has none under the key. */
  get(key: string): Promise<Buffer | undefined>;
  delete(key: string): Promise<void>;
}

/** Keys are media ids (UUIDs); anything else never reaches a path. */
function safeKey(key: string): string {
  if (!/^[0-9a-f-]{36}$/.test(key)) throw new Error(`bad media key ${key}`);
  return key;
}

/**
 * The default store: a local folder (MEDIA_DIR, `media/` beside the embedded database).
 * Files are written to a temporary name and renamed, so a reader never sees half a file.
 */
export class LocalMediaStore implements MediaStore {
  private ready: Promise<unknown> | undefined;

  constructor(private readonly dir: string) {}

  private fileOf(key: string): string {
    return join(this.dir, safeKey(key));
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    await (this.ready ??= mkdir(this.dir, { recursive: true, mode: 0o700 }));
    const file = this.fileOf(key);
    const temporary = `${file}.${randomToken(8)}.tmp`;
    await writeFile(temporary, bytes, { mode: 0o600 });
    await rename(temporary, file);
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.fileOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.fileOf(key), { force: true });
  }
}
