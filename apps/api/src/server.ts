/** The process: configuration, database, migrations, listen, graceful close. */
import { buildApp } from './app.js';
import { ConfigError, loadConfig, missingSettings } from './config.js';
import { SecretBox } from './crypto/secret-box.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = openDatabase(config.databaseUrl, config.postgres);
  // Migrations may seal stored values (009), so they run with the server's keys.
  await migrateToLatest(database, SecretBox.fromConfig(config));
  const { fastify } = await buildApp({ config, database });
  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    fastify.log.info({ signal }, 'shutting down');
    // Idle keep-alive connections close at once; a connection that never finishes a request
    // (it would otherwise hold the close until Node's 60 s header timeout) is cut after the grace.
    const deadline = setTimeout(() => fastify.server.closeAllConnections(), config.shutdownGraceMs);
    await fastify.close();
    clearTimeout(deadline);
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void close('SIGINT'));
  process.on('SIGTERM', () => void close('SIGTERM'));
  await fastify.listen({ port: config.port, host: config.host });
  fastify.log.info({ database: database.dialect, docs: '/docs' }, 'pharmacy API ready');
  for (const missing of missingSettings(config)) fastify.log.warn(missing);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`configuration error: ${error.message}`);
  } else {
    console.error('failed to start:', error instanceof Error ? error.message : error);
  }
  process.exit(1);
});
