import type { FastifyRequest } from 'fastify';
import { invalidApiKey, unsupportedSecurityScheme } from '../errors.js';
import type { Services } from '../services.js';

/** Reads `Authorization: ApiKey <key>` (scheme case-insensitive). */
function apiKeyFromHeader(header: string | undefined): string | null {
  const match = /^\s*apikey\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1]! : null;
}

/** Authenticates a request for one security scheme of the spec, or throws its 401. */
type SchemeAuthenticator = (services: Services, request: FastifyRequest) => Promise<void>;

const authenticators: Record<string, SchemeAuthenticator> = {
  async ApiKey(services, request) {
    const key = apiKeyFromHeader(request.headers.authorization);
    const principal = key ? await services.apiKeys.authenticate(key) : null;
    if (!principal) throw invalidApiKey();
    request.principal = principal;
  },
};

/**
 * The onRequest hook of an operation with these schemes (the spec's `security`), run before
 * the body is read. A scheme the service cannot check yet refuses every request with 501,
 * so an operation is never served unauthenticated by mistake.
 */
export function securityHook(schemes: string[]): ((request: FastifyRequest) => Promise<void>) | undefined {
  if (schemes.length === 0) return undefined;
  const scheme = schemes.find((s) => authenticators[s]) ?? schemes[0]!;
  const authenticate = authenticators[scheme];
  return async (request) => {
    if (!authenticate) throw unsupportedSecurityScheme(scheme);
    await authenticate(request.server.services, request);
  };
}
