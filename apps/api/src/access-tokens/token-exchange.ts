import type { OAuthClients } from '../customers/oauth-clients.js';
import { oauthError } from '../errors.js';
import type { AccessTokens, IssuedToken } from './access-tokens.js';

/** What a client sends to `POST /oauth/token` (the body's fields this grant uses). */
export interface TokenRequest {
  client_id?: string;
  client_secret?: string;
  audience: string;
  grant_type: string;
  scope?: string;
}

interface ClientCredentials {
  clientId: string;
  secret: string;
}

/**
 * The client's credentials, from HTTP Basic (RFC 6749 §2.3.1: id and secret form-encoded,
 * then base64) or from the body; both at once is refused, as the RFC asks. Answers
 * undefined when neither was sent.
 */
function credentialsOf(authorization: string | undefined, body: TokenRequest): ClientCredentials | undefined {
  const basic = /^\s*basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  const inBody = body.client_id !== undefined || body.client_secret !== undefined;
  if (basic && inBody) throw oauthError('invalid_request', 'Send the client credentials either with HTTP Basic or in the body, not both.');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 1) throw oauthError('invalid_client', 'Client authentication failed.');
    try {
      return { clientId: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
    } catch {
      throw oauthError('invalid_client', 'Client authentication failed.');
    }
  }
  if (authorization !== undefined && /^\s*basic\b/i.test(authorization)) throw oauthError('invalid_client', 'Client authentication failed.');
  if (!inBody) return undefined;
  if (!body.client_id) throw oauthError('invalid_request', 'client_id is required with client_secret.');
  if (!body.client_secret) throw oauthError('invalid_request', 'client_secret is required with client_id.');
  return { clientId: body.client_id, secret: body.client_secret };
}

/**
 * The OAuth 2.0 client credentials grant (RFC 6749 §4.4): authenticates the client, checks
 * the audience and the scopes asked for, and issues a token. Every refusal is an OAuth
 * error (RFC 6749 §5.2): `unsupported_grant_type`, `invalid_request`, `invalid_client`
 * (401), `access_denied`, `invalid_scope`.
 */
export class TokenExchange {
  constructor(
    private readonly clients: Pick<OAuthClients, 'authenticate'>,
    private readonly tokens: Pick<AccessTokens, 'audience' | 'issue'>,
  ) {}

  async exchange(body: TokenRequest, authorization: string | undefined): Promise<IssuedToken> {
    if (body.grant_type !== 'client_credentials') {
      throw oauthError('unsupported_grant_type', 'Only the client_credentials grant is supported.');
    }
    const credentials = credentialsOf(authorization, body);
    const client = credentials && (await this.clients.authenticate(credentials.clientId, credentials.secret));
    if (!client) throw oauthError('invalid_client', 'Client authentication failed.');
    if (body.audience !== this.tokens.audience) {
      throw oauthError('access_denied', `The client is not authorized to access ${JSON.stringify(body.audience).slice(0, 300)}.`);
    }
    return this.tokens.issue(client, this.scopesAskedFor(body.scope, client.scopes));
  }

  /** The scopes the token carries: those asked for (each granted to the client), or all the client's. */
  private scopesAskedFor(scope: string | undefined, granted: readonly string[]): readonly string[] {
    const asked = (scope ?? '').split(' ').filter(Boolean);
    if (asked.length === 0) return granted;
    const refused = asked.find((s) => !granted.includes(s));
    if (refused !== undefined) throw oauthError('invalid_scope', `The client is not granted the scope ${JSON.stringify(refused).slice(0, 200)}.`);
    return [...new Set(asked)];
  }
}
