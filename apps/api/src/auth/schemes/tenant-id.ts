import type { FastifyRequest } from 'fastify';
import type { AccessTokens } from '../../access-tokens/access-tokens.js';
import type { Tenants } from '../../customers/tenants.js';
import { notFound, platformUnauthorized, type HttpError } from '../../errors.js';
import type { TenantCaller } from '../principal.js';
import type { SecurityScheme } from '../security-scheme.js';
import { bearerTokenOf } from './bearer-jwt.js';

/**
 * The `TenantId` scheme: `x-tenant-id: <tenant id>` routes an unauthenticated platform
 * request to its tenant (seed 5.2.3). An unknown tenant answers the platform's 401; a
 * request that also carries a valid bearer token matches no route (404). The header is not
 * a secret: the operations it opens are those anyone may call (creating an account).
 */
export class TenantIdScheme implements SecurityScheme {
  constructor(
    private readonly tenants: Pick<Tenants, 'customerOf'>,
    private readonly tokens: Pick<AccessTokens, 'authenticate'>,
  ) {}

  async authenticate(request: FastifyRequest): Promise<TenantCaller | null> {
    const tenantId = request.headers['x-tenant-id'];
    if (tenantId === undefined) return null;
    const token = bearerTokenOf(request);
    if (token && (await this.tokens.authenticate(token))) throw notFound();
    const customerId = typeof tenantId === 'string' && tenantId.length <= 64 ? await this.tenants.customerOf(tenantId.trim()) : undefined;
    if (!customerId) throw platformUnauthorized();
    return { kind: 'tenant', customerId };
  }

  missing(): HttpError {
    return platformUnauthorized();
  }
}
