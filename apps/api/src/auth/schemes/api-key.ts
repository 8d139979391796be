import type { FastifyRequest } from 'fastify';
import type { ApiKeyAuthenticator } from '../../customers/api-keys.js';
import { invalidApiKey, REALM, type HttpError } from '../../errors.js';
import type { ApiKeyCaller } from '../principal.js';
import type { SecurityScheme } from '../security-scheme.js';

/**
 * The `ApiKey` scheme: `Authorization: ApiKey <key>` (the scheme word in any case). The
 * key selects the customer and the environment. A request whose Authorization header is
 * absent or names another scheme (`Bearer ...`) carries no API key; a malformed or unknown
 * key answers the source's exact 401 body.
 */
export class ApiKeyScheme implements SecurityScheme {
  readonly challenge = `ApiKey realm="${REALM}"`;

  constructor(private readonly keys: Pick<ApiKeyAuthenticator, 'authenticate'>) {}

  async authenticate(request: FastifyRequest): Promise<ApiKeyCaller | null> {
    const credentials = /^\s*(\S+)(.*)$/s.exec(request.headers.authorization ?? '');
    if (!credentials || credentials[1]!.toLowerCase() !== 'apikey') return null;
    const key = /^\s+(\S+)\s*$/.exec(credentials[2]!)?.[1];
    const caller = key ? await this.keys.authenticate(key) : null;
    if (!caller) throw invalidApiKey();
    return caller;
  }

  missing(): HttpError {
    return invalidApiKey();
  }
}
