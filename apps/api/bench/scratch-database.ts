import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A database created for one bench run on a PostgreSQL server, and dropped by `drop()`. */
export interface ScratchDatabase {
  url: string;
  name: string;
  /** A connection to the server's own database (the one the server's URL names). */
  admin: pg.Client;
  drop(): Promise<void>;
}

/**
 * A scratch database named `<prefix>_<random>` on the server `serverUrl` names (default:
 * DATABASE_URL when it is PostgreSQL's, else postgres://postgres@127.0.0.1:5432/postgres).
 */
export async function scratchDatabase(prefix: string, serverUrl = defaultServer()): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    admin,
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

function defaultServer(): string {
  return process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : 'postgres://postgres@127.0.0.1:5432/postgres';
}
