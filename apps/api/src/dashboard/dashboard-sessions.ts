import { createHash, randomBytes } from 'node:crypto';
import type { Environment } from '../auth/principal.js';
import { ENVIRONMENTS } from '../auth/principal.js';
import { nowMs } from '../clock.js';
import type { ApiKeyAuthenticator } from '../customers/api-keys.js';
import type { DashboardSessionRepository, DashboardSessionRow } from './dashboard-session-repository.js';

/** How long a session lasts unused, and at most. */
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_ABSOLUTE_MS = 12 * 3_600_000;
/** Longer than any key this service makes: a longer value is refused before it is hashed. */
const MAX_KEY_LENGTH = 128;

/** A live session as a page sees it. */
export interface DashboardSession {
  idHash: string;
  customerId: string;
  /** The environments whose keys were given, sandbox first. */
  environments: Environment[];
  csrfToken: string;
}

/** A random value for a cookie or a form: 32 bytes, base64url. */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

function hashOf(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

function environmentsOf(row: DashboardSessionRow): Environment[] {
  const listed = row.environments.split(' ');
  return ENVIRONMENTS.filter((env) => listed.includes(env));
}

/**
 * Dashboard sessions: opened by an API key (its customer and environment), widened to the
 * customer's other environment by that environment's key, ended by signing out, after
 * `SESSION_IDLE_MS` unused or `SESSION_ABSOLUTE_MS` in all. Stored by the SHA-256 of the
 * session id, so the table alone opens no session. A new id is issued whenever a key is
 * given (the session's rights change).
 */
export class DashboardSessions {
  constructor(
    private readonly repository: DashboardSessionRepository,
    private readonly apiKeys: ApiKeyAuthenticator,
    private readonly limits = { idleMs: SESSION_IDLE_MS, absoluteMs: SESSION_ABSOLUTE_MS },
  ) {}

  /**
   * Signs in with a key: undefined when it is no live key. A key of the current session's
   * customer adds its environment to that session; any other opens a new session (the
   * current one is ended). Answers the new session id, for the cookie, and the key's environment.
   */
  async signIn(apiKey: string, current: DashboardSession | undefined): Promise<{ sessionId: string; environment: Environment } | undefined> {
    if (!apiKey || apiKey.length > MAX_KEY_LENGTH) return undefined;
    const caller = await this.apiKeys.authenticate(apiKey);
    if (!caller) return undefined;
    const sessionId = randomSecret();
    const idHash = hashOf(sessionId);
    const now = nowMs();
    if (current && current.customerId === caller.customerId) {
      const environments = ENVIRONMENTS.filter((env) => env === caller.environment || current.environments.includes(env));
      await this.repository.update(current.idHash, { id_hash: idHash, environments: environments.join(' '), csrf_token: randomSecret() });
      return { sessionId, environment: caller.environment };
    }
    if (current) await this.repository.delete(current.idHash);
    await this.repository.insert({
      id_hash: idHash,
      customer_id: caller.customerId,
      environments: caller.environment,
      csrf_token: randomSecret(),
      notice: null,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + Math.min(this.limits.idleMs, this.limits.absoluteMs)).toISOString(),
      absolute_expires_at: new Date(now + this.limits.absoluteMs).toISOString(),
    });
    return { sessionId, environment: caller.environment };
  }

  /** The live session of a cookie's id, its idle expiry moved on; undefined when there is none. */
  async find(sessionId: string | undefined): Promise<DashboardSession | undefined> {
    if (!sessionId || sessionId.length > 64) return undefined;
    const idHash = hashOf(sessionId);
    const now = nowMs();
    const row = await this.repository.findLive(idHash, new Date(now).toISOString());
    if (!row) return undefined;
    const expiresAt = new Date(Math.min(now + this.limits.idleMs, Date.parse(row.absolute_expires_at))).toISOString();
    await this.repository.update(idHash, { expires_at: expiresAt });
    return { idHash, customerId: row.customer_id, environments: environmentsOf(row), csrfToken: row.csrf_token };
  }

  /** Leaves a one-time message for the session's next page. */
  async leaveNotice(session: DashboardSession, notice: string): Promise<void> {
    await this.repository.update(session.idHash, { notice });
  }

  /** The message left for this page, once. */
  takeNotice(session: DashboardSession): Promise<string | null> {
    return this.repository.takeNotice(session.idHash);
  }

  async signOut(session: DashboardSession): Promise<void> {
    await this.repository.delete(session.idHash);
  }

  /** Deletes expired sessions (a background loop); answers how many. */
  prune(): Promise<number> {
    return this.repository.deleteExpired(new Date(nowMs()).toISOString());
  }
}
