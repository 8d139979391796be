// A request's answer stored in the transaction of its unit of work (UnitsOfWork.answerInUnit,
// what idempotent requests rely on): both commit, or neither.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactorFor } from '../src/db/transactor.js';
import { UnitsOfWork } from '../src/events/unit-of-work.js';
import { randomToken } from '../src/tokens.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';

let database: TestDatabase;
let units: UnitsOfWork;

beforeAll(async () => {
  database = await createTestDatabase();
  units = new UnitsOfWork(transactorFor(database.handle));
});
afterAll(async () => database?.dispose());

const db = () => database.handle.db;
const customer = (id: string) => ({ id, name: 'Answer test', tenant_id: id, created_at: new Date().toISOString() });
const exists = async (id: string) => (await db().selectFrom('customers').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

/** A handler that writes one record in its unit of work, then answers; its answer is stored as a second record. */
async function request(options: { failAfterUnit?: boolean; failStoring?: boolean; secondUnit?: boolean } = {}) {
  const requestId = `req_${randomToken(8)}`;
  const written = `cus_${randomToken(12)}`;
  const stored = `cus_${randomToken(12)}`;
  const outcome = units.answerInUnit(
    requestId,
    async () => {
      await units.run(requestId, ({ trx }) => trx.insertInto('customers').values(customer(written)).execute());
      if (options.secondUnit) await units.run(requestId, async () => undefined);
      if (options.failAfterUnit) throw new Error('the presenter failed');
      return { status: 201 };
    },
    async (trx) => {
      if (options.failStoring) throw new Error('storing failed');
      await trx.insertInto('customers').values(customer(stored)).execute();
    },
  );
  return { outcome, written, stored };
}

describe('an answer stored in the unit of work of its request', () => {
  it('commits with the records the request wrote', async () => {
    const { outcome, written, stored } = await request();
    await expect(outcome).resolves.toEqual({ status: 201 });
    expect([await exists(written), await exists(stored)]).toEqual([true, true]);
  });

  it.each([
    ['the handler fails after its unit of work', { failAfterUnit: true }, 'the presenter failed'],
    ['the answer cannot be stored', { failStoring: true }, 'storing failed'],
    ['the handler opens a second unit of work', { secondUnit: true }, 'opened a second unit of work'],
  ])('rolls back the records too when %s', async (_what, options, message) => {
    const { outcome, written, stored } = await request(options);
    await expect(outcome).rejects.toThrow(message);
    expect([await exists(written), await exists(stored)]).toEqual([false, false]);
  });

  it('is stored on its own when the request wrote nothing', async () => {
    const stored = `cus_${randomToken(12)}`;
    await units.answerInUnit('req_readonly', async () => 'answer', (trx) => trx.insertInto('customers').values(customer(stored)).execute().then(() => undefined));
    expect(await exists(stored)).toBe(true);
  });
});
