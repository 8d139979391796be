import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/**
 * Kysely's SQLite dialect, except that transactions take the write lock when they begin
 * (`BEGIN IMMEDIATE`). Several processes may share the embedded database file (the service
 * and the admin commands pharmacy staff run beside it). A deferred transaction that reads,
 * then writes after another process committed, fails at once with SQLITE_BUSY ("database is
 * locked"): SQLite cannot wait for it, since the snapshot it read is stale. An immediate one
 * waits for the lock up to `busy_timeout` instead, then reads current data.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly dialectConfig: SqliteDialectConfig) {
    super(dialectConfig);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.dialectConfig);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}
