import rateLimitPlugin, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import type { RateLimitConfig } from '../config.js';
import { tooManyRequests } from '../errors.js';

/**
 * Where the service counts requests (RATE_LIMIT_*). Limits are answered with the IETF
 * draft's fields (draft-ietf-httpapi-ratelimit-headers, the `RateLimit-Limit`,
 * `RateLimit-Remaining` and `RateLimit-Reset` form, reset in seconds) on every counted
 * answer, and a refusal is `429` with `Retry-After`.
 */
export interface RateLimits {
  /**
   * First of every request (a global onRequest hook): a route that authenticates refuses a
   * client address over its failed-authentication limit before any credential is looked up;
   * any other route (public operations, the docs, unknown paths) counts toward the address's
   * anonymous limit.
   */
  onRequest(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** After credentials were missing or refused (a 401): one more failure of the address. */
  authenticationFailed(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** After authentication (`request.principal` is set): the request counts toward its caller's own limit. */
  authenticated(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The spec's operation the route serves. */
    operationId?: string;
    /** Whether the route authenticates its caller (its operation has security requirements). */
    authenticates?: boolean;
    /** An operator's probe (`/health/...`): never counted, so a busy prober cannot make an instance look unhealthy. */
    probe?: boolean;
  }
}

/** Who a caller is, for counting: one API key (a customer's key of one environment), one bearer client, one tenant. */
function callerKey(principal: Principal): string {
  switch (principal.kind) {
    case 'api-key':
      return `api-key:${principal.customerId}:${principal.environment}`;
    case 'bearer':
      return `bearer:${principal.clientId}`;
    case 'tenant':
      return `tenant:${principal.customerId}`;
  }
}

interface Count {
  max: number;
  remaining: number;
  ttlInSeconds: number;
  /** This request went over the limit. */
  isExceeded: boolean;
}

type Counter = (request: FastifyRequest, options?: { increment?: boolean }) => Promise<Count>;

/** No limits (RATE_LIMIT_ENABLED=false, and apps built without the service's limits). */
export const NO_RATE_LIMITS: RateLimits = { onRequest: async () => {}, authenticationFailed: async () => {}, authenticated: async () => {} };

function announce(reply: FastifyReply, count: Count): void {
  reply.header('ratelimit-limit', count.max);
  reply.header('ratelimit-remaining', count.remaining);
  reply.header('ratelimit-reset', count.ttlInSeconds);
}

function refuse(reply: FastifyReply, count: Count): never {
  announce(reply, { ...count, remaining: 0 });
  const retryAfter = Math.max(1, count.ttlInSeconds);
  reply.header('retry-after', retryAfter);
  throw tooManyRequests(retryAfter);
}

/**
 * Counts with @fastify/rate-limit's in-process store (an LRU of counters per window). Each
 * process counts on its own: N processes sharing a database allow N times each limit.
 */
export async function installRateLimits(app: FastifyInstance, config: RateLimitConfig): Promise<RateLimits> {
  if (!config.enabled) return NO_RATE_LIMITS;
  await app.register(rateLimitPlugin, { global: false });
  const counter = (max: number, key: (request: FastifyRequest) => string): Counter => {
    const limiter = app.createRateLimit({ max, timeWindow: config.windowMs, keyGenerator: key });
    return async (request, options) => {
      const result = await limiter(request, options);
      return result.isAllowed ? { max, remaining: max, ttlInSeconds: 0, isExceeded: false } : result;
    };
  };
  // An IPv6 client is its /64 (one host's usual share), or it could count afresh from every address it has.
  const address = (request: FastifyRequest) => normalizeIP(request.ip, 64);
  const failures = counter(config.authFailuresMax, (request) => `failures:${address(request)}`);
  const anonymous = counter(config.anonymousMax, (request) => `anonymous:${address(request)}`);
  const callers = counter(config.max, (request) => callerKey(request.principal!));

  return {
    async onRequest(request, reply) {
      if (request.routeOptions.config.probe) return;
      if (!request.routeOptions.config.authenticates) {
        const count = await anonymous(request);
        announce(reply, count);
        if (count.isExceeded) refuse(reply, count);
        return;
      }
      // Read, not counted: only failures count here, and the check costs no key lookup.
      const failed = await failures(request, { increment: false });
      if (failed.remaining === 0) refuse(reply, failed);
    },
    async authenticationFailed(request, reply) {
      announce(reply, await failures(request));
    },
    async authenticated(request, reply) {
      const count = await callers(request);
      announce(reply, count);
      if (count.isExceeded) refuse(reply, count);
    },
  };
}
