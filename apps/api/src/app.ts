import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/database.js';
import type { WorkerLoop } from './background/worker-loop.js';
import { registerDashboard } from './dashboard/dashboard-routes.js';
import { registerDocs } from './docs/docs-routes.js';
import { handlers } from './generated/handler-index.js';
import { routes } from './generated/routes.js';
import { sendAnswersTogether } from './http/answers-together.js';
import { registerBodyParsers } from './http/body-parsers.js';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './http/error-handler.js';
import { registerHealth } from './http/health-routes.js';
import { installRateLimits } from './http/rate-limits.js';
import { registerOperations } from './http/register-operations.js';
import { registerMediaBodyParser } from './media/media-body-parser.js';
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

/**
 * The longest path segment the router matches. Record ids are at most 64 characters (the
 * spec's `Token`), so a longer one up to this answers a 400 naming the parameter; a segment
 * longer still is refused by the router as `414`.
 */
const MAX_PATH_PARAMETER_LENGTH = 128;

/** Builds the app from its parts; tests build the same app. */
export async function buildApp({ config, database, logger, workers: runWorkers = true }: AppOptions): Promise<App> {
  const limits = config.requestLimits;
  const nextRequestId = requestIds();
  const fastify: FastifyInstance = Fastify({
    logger: logger ?? { level: config.logLevel, serializers: requestSerializers },
    bodyLimit: config.bodyLimit,
    genReqId: nextRequestId,
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    frameworkErrors,
    clientErrorHandler: clientErrorHandler(nextRequestId, () => fastify.log),
    // Slow clients: the headers, then the whole request, must arrive in time (checked every
    // second), and an idle keep-alive connection is closed.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs) },
    // While closing, requests still arriving on open connections are served (with
    // `Connection: close`) rather than answered by Fastify's own 503 body.
    return503OnClosing: false,
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  await registerBodyParsers(fastify, { bodyLimit: config.bodyLimit, maxDepth: limits.bodyMaxDepth, maxMembers: limits.bodyMaxMembers });
  registerMediaBodyParser(fastify, config.media.maxBytes);
  installErrorHandling(fastify);
  sendAnswersTogether(fastify);
  const rateLimits = await installRateLimits(fastify, config.rateLimit);
  fastify.addHook('onRequest', rateLimits.onRequest);
  const services = createServices(database, config, fastify.log);
  registerOperations(fastify, routes, handlers, services, rateLimits);
  registerDocs(fastify, services.openApiDocument.text);
  registerDashboard(fastify, { ...services, sessions: services.dashboardSessions }, rateLimits);
  const workers = runWorkers ? createWorkers(services, config, fastify.log) : [];
  registerHealth(fastify, { database, workers });
  fastify.addHook('onReady', async () => workers.forEach((w) => w.start()));
  fastify.addHook('onClose', async () => {
    await Promise.all(workers.map((w) => w.stop()));
    // What the audit trail still holds is written before the database closes.
    await services.audit.flush();
  });
  return { fastify, services, workers };
}
