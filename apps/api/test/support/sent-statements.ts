import { createRequire } from 'node:module';

/** pg's query, which every statement a client sends goes through (`submit`), with its text. */
const Query = createRequire(import.meta.url)('pg/lib/query.js') as { prototype: { text?: string; submit: (...args: unknown[]) => unknown } };

/** What `call` answered, and the texts of the statements naming `table` that PostgreSQL was sent while it ran. */
export async function statementsSent<T>(table: string, call: () => Promise<T>): Promise<{ result: T; sent: string[] }> {
  const sent: string[] = [];
  const submit = Query.prototype.submit;
  Query.prototype.submit = function (this: { text?: string }, ...args: unknown[]) {
    if (this.text?.includes(`"${table}"`)) sent.push(this.text);
    return submit.apply(this, args);
  };
  try {
    return { result: await call(), sent };
  } finally {
    Query.prototype.submit = submit;
  }
}
