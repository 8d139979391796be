import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Handlers } from '../generated/handlers.js';
import type { RequestContext } from './operation-types.js';
import type { RouteDefinition } from './route-definition.js';
import type { Services } from '../services.js';
import type { Principal } from '../auth/principal.js';
import { securitySchemes } from '../auth/security-schemes.js';
import { contractSchemaResource } from './contract-schemas.js';
import type { JsonSchema } from './json-schema.js';
import { installResponseSerialization } from './response-serialization.js';
import { NO_RATE_LIMITS, type RateLimits } from './rate-limits.js';
import { createValidatorCompiler, trimStrings, type Validator, type ValidatorCompiler } from './request-validation.js';
import { answerOnce, fingerprintOf, IDEMPOTENCY_KEY } from './idempotency.js';
import { securityHook } from './security.js';
import { auditCalls, type AuditedCall } from './audited.js';
import { deprecationHeaders } from './deprecation-headers.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyInstance {
    services: Services;
  }
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/** `/v1/patient/{patient_token}` to Fastify's `/v1/patient/:patient_token`. */
function fastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** Every `/v1/...` path is also served under `/api/v1/...` (seed 1.7). */
function servedPaths(path: string): string[] {
  return path.startsWith('/v1/') ? [path, `/api${path}`] : [path];
}

/** One value of a request header (the first, when it came several times). */
function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function isForm(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith(FORM);
}

/**
 * Arguments of an operation with a body may come as JSON, as form data or, when no body is
 * sent, as query parameters (seed 1.6). Query parameters the operation declares stay query.
 */
function bodyArguments(request: FastifyRequest, declaredQuery: Set<string>): { data: unknown; typed: boolean } {
  if (request.body !== undefined && request.body !== null) {
    return { data: request.body, typed: !isForm(request) };
  }
  const fromQuery = Object.fromEntries(
    Object.entries((request.query ?? {}) as Record<string, unknown>).filter(([k]) => !declaredQuery.has(k)),
  );
  return { data: fromQuery, typed: false };
}

interface CompiledRoute {
  params?: Validator;
  query?: Validator;
  headers?: Validator;
  /** The declared request headers, by their lower-case name (as Node reads them) to the spec's spelling. */
  declaredHeaders: [string, string][];
  jsonBody?: Validator;
  textBody?: Validator;
  declaredQuery: Set<string>;
}

function compileRoute(route: RouteDefinition, compileValidator: ValidatorCompiler): CompiledRoute {
  return {
    params: route.params && compileValidator(route.params, 'text'),
    query: route.query && compileValidator(route.query, 'text'),
    headers: route.headers && compileValidator(route.headers, 'text'),
    declaredHeaders: Object.keys((route.headers?.properties as object) ?? {}).map((name) => [name.toLowerCase(), name]),
    jsonBody: route.body && compileValidator(route.body.schema, 'json'),
    textBody: route.body && compileValidator(route.body.schema, 'text'),
    declaredQuery: new Set(Object.keys((route.query?.properties as object) ?? {})),
  };
}

/** JSON response schemas per status, so replies are serialized through the spec (undocumented fields never leave). */
function responseSchemas(route: RouteDefinition): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(route.responses)
      .filter(([status, r]) => /^\d{3}$/.test(status) && r.contentType === JSON_TYPE && r.schema)
      .map(([status, r]) => [status, r.schema]),
  );
}

export function registerOperations(
  app: FastifyInstance,
  routes: readonly RouteDefinition[],
  handlers: Handlers,
  services: Services,
  limits: RateLimits = NO_RATE_LIMITS,
): void {
  app.decorateRequest('principal', null);
  app.decorate('services', services);
  // Read when the first validator or serializer is built (both are built on first use).
  let contract: JsonSchema | undefined;
  const contractOf = () => (contract ??= contractSchemaResource(services.openApiDocument.text));
  installResponseSerialization(app, contractOf);
  const compileValidator = createValidatorCompiler(contractOf);
  const schemes = securitySchemes(services);
  for (const route of routes) {
    const compiled = compileRoute(route, compileValidator);
    const handler = handlers[route.operationId as keyof Handlers] as unknown as (
      input: { path: unknown; query: unknown; headers: unknown; body: unknown },
      ctx: RequestContext,
    ) => Promise<{ status: number; body: unknown; contentType?: string; headers?: Readonly<Record<string, string>> }>;
    const onRequest = securityHook(route.security, schemes, route.operationId, limits);
    const idempotent = compiled.declaredHeaders.some(([, name]) => name === IDEMPOTENCY_KEY);
    if (idempotent && route.security.length === 0) {
      throw new Error(`Operation ${route.operationId}: ${IDEMPOTENCY_KEY} needs a caller to scope the keys; declare it on secured operations only`);
    }

    const audit = auditCalls(route, services.audit);

    /** Validates, runs the handler (once per Idempotency-Key), answers; `call` keeps what it was given. */
    const answer = async (request: FastifyRequest, reply: FastifyReply, call: AuditedCall) => {
      const path = { ...(request.params as object) };
      call.path = path;
      compiled.params?.(path);
      const query = trimStrings({ ...(request.query as object) });
      call.query = query;
      compiled.query?.(query);
      let body: unknown;
      if (route.body && Buffer.isBuffer(request.body)) {
        // Raw bytes (a signed media upload, media/media-body-parser.ts): the operation checks them itself.
        body = request.body;
      } else if (route.body) {
        const args = bodyArguments(request, compiled.declaredQuery);
        body = trimStrings(args.data);
        call.body = body;
        (args.typed ? compiled.jsonBody : compiled.textBody)!(body);
      }
      const headers = Object.fromEntries(
        compiled.declaredHeaders.flatMap(([lower, name]) => (request.headers[lower] === undefined ? [] : [[name, request.headers[lower]]])),
      );
      compiled.headers?.(headers);
      const ctx: RequestContext = { principal: request.principal, requestId: request.id, services, header: (name) => headerOf(request, name) };
      const input = { path, query, headers, body };
      const key = idempotent ? (headers[IDEMPOTENCY_KEY] as string | undefined) : undefined;
      const out = key
        ? await answerOnce(
            services,
            { key, principal: request.principal!, operationId: route.operationId, fingerprint: fingerprintOf(route.operationId, input), requestId: request.id },
            reply,
            () => handler(input, ctx),
          )
        : await handler(input, ctx);
      reply.code(out.status);
      if (out.contentType) reply.type(out.contentType);
      if ('headers' in out && out.headers) reply.headers(out.headers);
      if (out.status < 300) call.response = out.body;
      // Fastify sends a bare string as it is; a JSON answer that is one string is a JSON string.
      if (typeof out.body === 'string' && !out.contentType && route.responses[String(out.status)]?.contentType === JSON_TYPE) {
        reply.type(`${JSON_TYPE}; charset=utf-8`);
        return JSON.stringify(out.body);
      }
      return out.body;
    };

    const serve = audit
      ? async (request: FastifyRequest, reply: FastifyReply) => {
          const call: AuditedCall = { path: undefined, query: undefined, body: undefined };
          try {
            const body = await answer(request, reply, call);
            audit(request, call, reply.statusCode);
            return body;
          } catch (error) {
            audit(request, call, (error as { statusCode?: number }).statusCode ?? 500);
            throw error;
          }
        }
      : (request: FastifyRequest, reply: FastifyReply) => answer(request, reply, { path: undefined, query: undefined, body: undefined });

    // A deprecated operation says so on every answer, its errors and refusals included (spec/VERSIONING.md).
    const deprecation = deprecationHeaders(route);
    const onSend = deprecation
      ? async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
          reply.headers(deprecation);
          return payload;
        }
      : undefined;

    for (const url of servedPaths(route.path)) {
      app.route({
        method: route.method as 'GET',
        url: fastifyPath(url),
        schema: { response: responseSchemas(route) },
        config: { operationId: route.operationId, authenticates: route.security.length > 0, errorShape: route.errorShape, bodyOptional: !route.body?.required },
        ...(onRequest ? { onRequest } : {}),
        ...(onSend ? { onSend } : {}),
        handler: serve,
      });
    }
  }
}
