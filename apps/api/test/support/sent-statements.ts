import { createRequire } from 'node:module';

/** pg's query, which every statement a client sends goes through (`submit`), with its text. */
const Query = createRequire(import.meta.url)('pg/lib/query.js') as { prototype: { text?: string; values?: unknown[]; submit: (...args: unknown[]) => unknown } };

/**
 * What `call` answered, and the statements naming `table` that PostgreSQL was sent while it
 * ran: their texts (`sent`) and parameters (`parameters`).
 */
export async function statementsSent<T>(table: string, call: () => Promise<T>): Promise<{ result: T; sent: string[]; parameters: unknown[][] }> {
  const sent: string[] = [];
  const parameters: unknown[][] = [];
  const submit = Query.prototype.submit;
  Query.prototype.submit = function (this: { text?: string; values?: unknown[] }, ...args: unknown[]) {
    if (this.text?.includes(`"${table}"`)) {
      sent.push(this.text);
      parameters.push(this.values ?? []);
    }
    return submit.apply(this, args);
  };
  try {
    return { result: await call(), sent, parameters };
  } finally {
    Query.prototype.submit = submit;
  }
}
