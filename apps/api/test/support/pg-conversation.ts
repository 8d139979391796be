import { createRequire } from 'node:module';

/** pg's query, which every statement a client sends goes through (`submit`), with its text. */
type Traced = { text?: string; submit: (...args: unknown[]) => unknown; handleReadyForQuery: (...args: unknown[]) => unknown };
const Query = createRequire(import.meta.url)('pg/lib/query.js') as { prototype: Traced };

/**
 * What `call` answered, and its conversation with PostgreSQL, of the statements `own` names
 * (the background jobs' are left out): `> name` when one went out, `< name` when its answer was in.
 */
export async function conversation<T>(own: (text?: string) => string | undefined, call: () => Promise<T>): Promise<{ result: T; said: string[] }> {
  const said: string[] = [];
  const { submit, handleReadyForQuery } = Query.prototype;
  Query.prototype.submit = function (this: Traced, ...args: unknown[]) {
    if (own(this.text)) said.push(`> ${own(this.text)}`);
    return submit.apply(this, args);
  };
  Query.prototype.handleReadyForQuery = function (this: Traced, ...args: unknown[]) {
    if (own(this.text)) said.push(`< ${own(this.text)}`);
    return handleReadyForQuery.apply(this, args);
  };
  try {
    return { result: await call(), said };
  } finally {
    Object.assign(Query.prototype, { submit, handleReadyForQuery });
  }
}
