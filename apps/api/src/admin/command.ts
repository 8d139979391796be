import type { DatabaseHandle } from '../db/database.js';

/** An admin command: runs on the migrated database and answers what is printed as JSON. */
export type Command = (database: DatabaseHandle, rest: string[]) => Promise<unknown>;

/** A refused command: `message` goes to stderr with the usage, `code` is the exit code (2: bad arguments). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message);
  }
}
