/**
 * `pnpm admin <command>`: operator commands over the same database settings as the server.
 *   create-customer --name <name>   prints {"customer_id","sandbox_api_key","production_api_key"}
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { CustomerRepository } from '../customers/customer-repository.js';
import { CustomerService } from '../customers/customer-service.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';

const USAGE = 'usage: pnpm admin create-customer --name <name>';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'create-customer') {
    console.error(USAGE);
    return 2;
  }
  const { values } = parseArgs({ args: rest, options: { name: { type: 'string' } }, strict: true });
  if (!values.name?.trim()) {
    console.error(`--name is required\n${USAGE}`);
    return 2;
  }
  const database = openDatabase(loadConfig().databaseUrl);
  try {
    await migrateToLatest(database);
    const created = await new CustomerService(new CustomerRepository(database.db)).create(values.name);
    process.stdout.write(`${JSON.stringify(created)}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
