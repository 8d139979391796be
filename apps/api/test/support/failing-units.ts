import type { Db } from '../../src/db/database.js';
import { SimpleTransactor } from '../../src/db/transactor.js';
import { UnitsOfWork } from '../../src/events/unit-of-work.js';

/** Units of work in which every write runs, then the unit fails before it commits. */
export function unitsFailingAfterTheWrites(db: Db): UnitsOfWork {
  const real = new SimpleTransactor(db);
  return new UnitsOfWork({
    run: (work) =>
      real.run(async (trx) => {
        await work(trx);
        throw new Error('simulated failure after the writes');
      }),
  });
}

/** Runs `during` while the service's units of work fail after their writes. */
export async function withFailingUnits(service: object, db: Db, during: () => Promise<void>): Promise<void> {
  const target = service as { units: UnitsOfWork };
  const real = target.units;
  target.units = unitsFailingAfterTheWrites(db);
  try {
    await during();
  } finally {
    target.units = real;
  }
}
