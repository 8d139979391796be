import formbody from '@fastify/formbody';
import { parse as parseForm } from 'qs';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import type { WorkerLoop } from './background/worker-loop.js';
import { registerDocs } from './docs/docs-routes.js';
import { handlers } from './generated/handler-index.js';
import { routes } from './generated/routes.js';
import { installErrorHandling } from './http/error-handler.js';
import { registerOperations } from './http/register-operations.js';
import { createServices, type Services } from './services.js';
import { randomToken } from './tokens.js';
import { createWorkers } from './workers.js';

interface AppOptions {
  config: Config;
  database: DatabaseHandle;
  logger?: FastifyServerOptions['logger'];
  /** Run the background workers (started when the app is ready, stopped on close); default true. */
  workers?: boolean;
}

export interface App {
  fastify: FastifyInstance;
  services: Services;
  workers: WorkerLoop[];
}

/** Request logs carry method, path (never the query string: it can hold names) and ids. */
const requestSerializers = {
  req: (req: { method: string; url: string; id: string }) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
};

/** Request ids: unique per process start and counter; cheap, and not secrets. */
function requestIds(): () => string {
  const prefix = `req_${randomToken(8)}`;
  let counter = 0;
  return () => `${prefix}${(++counter).toString(36)}`;
}

/** Builds the app from its parts; tests build the same app. */
export async function buildApp({ config, database, logger, workers: runWorkers = true }: AppOptions): Promise<App> {
  const fastify = Fastify({
    logger: logger ?? { level: config.logLevel, serializers: requestSerializers },
    bodyLimit: config.bodyLimit,
    genReqId: requestIds(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true },
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // Bodies are JSON or form data only; Fastify's default text/plain parser would let others through.
  fastify.removeContentTypeParser('text/plain');
  // Form bodies may nest with brackets (`prescriber[first_name]=...`, `medications[0][prescription_token]=...`).
  await fastify.register(formbody, {
    bodyLimit: config.bodyLimit,
    parser: (body) => parseForm(body, { depth: 5, arrayLimit: 100, parameterLimit: 1000, allowPrototypes: false }),
  });
  installErrorHandling(fastify);
  const services = createServices(database, config, fastify.log);
  registerOperations(fastify, routes, handlers, services);
  registerDocs(fastify);
  const workers = runWorkers ? createWorkers(services, config, fastify.log) : [];
  fastify.addHook('onReady', async () => workers.forEach((w) => w.start()));
  fastify.addHook('onClose', async () => {
    await Promise.all(workers.map((w) => w.stop()));
  });
  return { fastify, services, workers };
}
