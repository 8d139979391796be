import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Environment, Owner } from '../auth/principal.js';
import type { CustomerService } from '../customers/customer-service.js';
import { HttpError } from '../errors.js';
import type { DeliveryAttempts } from '../webhook-deliveries/delivery-attempts.js';
import type { WebhookRedeliveryService } from '../webhook-deliveries/webhook-redelivery-service.js';
import type { WebhookEndpointService, WebhookEndpointView } from '../webhook-endpoints/webhook-endpoint-service.js';
import type { WebhookEventService } from '../webhook-events/webhook-event-service.js';
import { accountPage } from './account-page.js';
import { errorPage, secretPage, signInPage } from './dashboard-pages.js';
import {
  PAGE_HEADERS,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
  cookiesOf,
  isCrossSite,
  sameToken,
  setCookie,
  setSignInCookie,
} from './dashboard-security.js';
import { randomSecret, SESSION_ABSOLUTE_MS, type DashboardSession, type DashboardSessions } from './dashboard-sessions.js';

/** What the dashboard drives: the services of the areas it shows (it holds no rules of theirs). */
export interface DashboardServices {
  sessions: DashboardSessions;
  customers: CustomerService;
  webhookEndpoints: WebhookEndpointService;
  webhookEvents: WebhookEventService;
  webhookRedelivery: WebhookRedeliveryService;
  deliveryAttempts: DeliveryAttempts;
}

/** The app's count of failed sign-ins per client address (its rate limits), when it keeps one. */
export interface SignInFailures {
  authenticationFailed(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/** Events per page of the recent events. */
export const EVENTS_PER_PAGE = 25;
const STYLESHEET = readFileSync(new URL('./dashboard.css', import.meta.url));
const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b6e4f"/><path d="M7 3h2v4h4v2H9v4H7V9H3V7h4z" fill="#fff"/></svg>';
const REFUSED_KEY = 'That key was not accepted. Check that it is a live API key of your account.';
const SESSION_ENDED = 'Your session has ended or this form is out of date. Sign in again.';
const CROSS_SITE = 'This form was sent from another site.';
const KEY_NOT_GIVEN = 'Sign in with this environment\'s API key to open it.';

/** A refusal rendered as an HTML page. */
class PageError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

type Form = Record<string, unknown>;
/** The event types a test delivery can be (the spec's callback types). */
type TestEventType = NonNullable<Parameters<WebhookEndpointService['test']>[1]>;

/** One field of a posted form: a string, or undefined (absent, repeated or nested). */
function field(form: Form, name: string): string | undefined {
  const value = form[name];
  return typeof value === 'string' ? value : undefined;
}

function formOf(request: FastifyRequest): Form {
  const body = request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Form) : {};
}

/** What a service's refusal says, in one line (a 400's fields named). */
function messageOf(error: HttpError): string {
  const body = error.body as { validation_errors?: { key: string; message: string }[] };
  if (body.validation_errors) return body.validation_errors.map((e) => `${e.key} ${e.message}`).join('; ');
  return error.message;
}

function html(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}

function seeOther(reply: FastifyReply, environment?: Environment): FastifyReply {
  return reply.code(303).header('location', environment ? `/dashboard?env=${environment}` : '/dashboard').send();
}

/**
 * The customer dashboard at /dashboard: server-rendered pages and plain forms (POST, then a
 * redirect), no script. Signing in with an API key opens a session (a random id in an
 * HttpOnly, SameSite=Strict cookie, stored hashed) for the key's customer and environment;
 * the other environment's key adds it. Every form carries the session's CSRF token (the
 * sign-in form a double-submitted one) and is refused when the browser says it came from
 * another site. Every answer is HTML, never cached, under a strict Content-Security-Policy.
 */
export function registerDashboard(app: FastifyInstance, services: DashboardServices, failures: SignInFailures): void {
  void app.register(
    async (dashboard) => {
      dashboard.addHook('onSend', async (_request, reply, payload) => {
        for (const [name, value] of Object.entries(PAGE_HEADERS)) reply.header(name, value);
        return payload;
      });
      dashboard.setErrorHandler((error, request, reply) => {
        const status =
          error instanceof PageError || error instanceof HttpError
            ? error.statusCode
            : typeof (error as { statusCode?: unknown }).statusCode === 'number' && (error as { statusCode: number }).statusCode < 500
              ? (error as { statusCode: number }).statusCode
              : 500;
        if (status >= 500) request.log.error({ err: { type: (error as Error).name, message: (error as Error).message } }, 'dashboard request failed');
        if (error instanceof HttpError) for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
        const message =
          error instanceof PageError ? error.message : error instanceof HttpError && status < 500 ? messageOf(error) : status === 429 ? 'Too many attempts: wait a minute and try again.' : status < 500 ? 'The request could not be read.' : 'The dashboard could not answer. Try again.';
        return html(reply, status, errorPage(status, message));
      });
      dashboard.setNotFoundHandler((_request, reply) => html(reply, 404, errorPage(404, 'There is no such page.')));

      const sessionOf = (request: FastifyRequest) => services.sessions.find(cookiesOf(request)[SESSION_COOKIE]);

      /** Every form post: from this site, of a live session, with its token. */
      const postedBy = async (request: FastifyRequest): Promise<{ session: DashboardSession; form: Form }> => {
        if (isCrossSite(request)) throw new PageError(403, CROSS_SITE);
        const form = formOf(request);
        const session = await sessionOf(request);
        if (!session || !sameToken(field(form, 'csrf'), session.csrfToken)) throw new PageError(403, SESSION_ENDED);
        return { session, form };
      };

      /** The environment a form acts in: one the session holds. */
      const ownerOf = (session: DashboardSession, form: Form): Owner => {
        const environment = field(form, 'environment');
        const held = session.environments.find((env) => env === environment);
        if (!held) throw new PageError(403, KEY_NOT_GIVEN);
        return { customerId: session.customerId, environment: held };
      };

      /** Runs a service action; its refusal (a 4xx) becomes the next page's notice. */
      const act = async (session: DashboardSession, owner: Owner, reply: FastifyReply, action: () => Promise<string | FastifyReply>) => {
        let notice: string | FastifyReply;
        try {
          notice = await action();
        } catch (error) {
          if (!(error instanceof HttpError) || error.statusCode >= 500) throw error;
          notice = messageOf(error);
        }
        if (typeof notice !== 'string') return notice;
        await services.sessions.leaveNotice(session, notice);
        return seeOther(reply, owner.environment);
      };

      dashboard.get('/dashboard.css', async (_request, reply) => reply.type('text/css; charset=utf-8').send(STYLESHEET));
      dashboard.get('/favicon.svg', async (_request, reply) => reply.type('image/svg+xml').send(FAVICON));

      dashboard.get('/', async (request, reply) => {
        const session = await sessionOf(request);
        if (!session) {
          const existing = cookiesOf(request)[SIGN_IN_COOKIE];
          const token = existing && /^[A-Za-z0-9_-]{43}$/.test(existing) ? existing : randomSecret();
          setSignInCookie(request, reply, token);
          return html(reply, 200, signInPage(token));
        }
        const query = request.query as Record<string, unknown>;
        const asked = typeof query.env === 'string' ? query.env : undefined;
        const environment = asked === undefined ? session.environments[0]! : session.environments.find((env) => env === asked);
        if (!environment) throw new PageError(asked === 'sandbox' || asked === 'production' ? 403 : 400, asked === 'sandbox' || asked === 'production' ? KEY_NOT_GIVEN : 'There is no such environment.');
        const before = typeof query.before === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(query.before) ? query.before : undefined;
        const owner: Owner = { customerId: session.customerId, environment };
        const [notice, endpoint, events, keys] = await Promise.all([
          services.sessions.takeNotice(session),
          services.webhookEndpoints.get(owner).catch((error: unknown) => {
            if (error instanceof HttpError && error.statusCode === 404) return undefined;
            throw error;
          }) as Promise<WebhookEndpointView | undefined>,
          services.webhookEvents.recent(owner, before, EVENTS_PER_PAGE),
          services.customers.apiKeys(session.customerId),
        ]);
        const attempts = await services.deliveryAttempts.ofEvents(owner, events.results.map((e) => e.delivery_data.webhook_id ?? ''));
        return html(
          reply,
          200,
          accountPage({
            csrf: session.csrfToken,
            environments: session.environments,
            environment,
            notice,
            endpoint,
            testTypes: services.webhookEndpoints.testEventTypes(),
            events: events.results,
            nextBefore: events.before,
            paged: before !== undefined,
            attempts,
            keys,
          }),
        );
      });

      dashboard.post('/sign-in', { config: { authenticates: true } }, async (request, reply) => {
        if (isCrossSite(request)) throw new PageError(403, CROSS_SITE);
        const form = formOf(request);
        const current = await sessionOf(request);
        const expected = current ? current.csrfToken : cookiesOf(request)[SIGN_IN_COOKIE];
        if (!sameToken(field(form, 'csrf'), expected)) throw new PageError(403, SESSION_ENDED);
        const signedIn = await services.sessions.signIn(field(form, 'api_key') ?? '', current);
        if (!signedIn) {
          // Counted like every refused credential; nothing about the key is logged.
          await failures.authenticationFailed(request, reply);
          if (current) {
            await services.sessions.leaveNotice(current, REFUSED_KEY);
            return seeOther(reply);
          }
          return html(reply, 401, signInPage(expected!, REFUSED_KEY));
        }
        setCookie(request, reply, SESSION_COOKIE, signedIn.sessionId, Math.floor(SESSION_ABSOLUTE_MS / 1000));
        if (!current) setCookie(request, reply, SIGN_IN_COOKIE, '', 0);
        return seeOther(reply, signedIn.environment);
      });

      dashboard.post('/sign-out', async (request, reply) => {
        const { session } = await postedBy(request);
        await services.sessions.signOut(session);
        setCookie(request, reply, SESSION_COOKIE, '', 0);
        return seeOther(reply);
      });

      dashboard.post('/endpoint', async (request, reply) => {
        const { session, form } = await postedBy(request);
        const owner = ownerOf(session, form);
        return act(session, owner, reply, async () => {
          const endpoint = await services.webhookEndpoints.set(owner, field(form, 'url'), request.id);
          if (endpoint.secret) return html(reply, 200, secretPage(owner.environment, endpoint.secret, 'The endpoint is set and deliveries are signed with a new secret.'));
          return `The ${owner.environment} endpoint is now ${endpoint.url}.`;
        });
      });

      dashboard.post('/endpoint/rotate-secret', async (request, reply) => {
        const { session, form } = await postedBy(request);
        const owner = ownerOf(session, form);
        return act(session, owner, reply, async () => {
          const endpoint = await services.webhookEndpoints.rotateSecret(owner, request.id);
          return html(reply, 200, secretPage(owner.environment, endpoint.secret!, 'The signing secret was rotated: deliveries from now on are signed with this one.'));
        });
      });

      dashboard.post('/endpoint/enable', async (request, reply) => {
        const { session, form } = await postedBy(request);
        const owner = ownerOf(session, form);
        return act(session, owner, reply, async () => {
          await services.webhookEndpoints.enable(owner, request.id);
          return `The ${owner.environment} endpoint is enabled: its events are delivered again.`;
        });
      });

      dashboard.post('/endpoint/test', async (request, reply) => {
        const { session, form } = await postedBy(request);
        const owner = ownerOf(session, form);
        return act(session, owner, reply, async () => {
          const given = field(form, 'callback_type');
          const callbackType = services.webhookEndpoints.testEventTypes().find((type) => type === given) as TestEventType | undefined;
          if (!callbackType) return 'Choose one of the listed event types to send.';
          const started = performance.now();
          const result = await services.webhookEndpoints.test(owner, callbackType);
          const ms = Math.round(performance.now() - started);
          const answer = result.statusCode === null ? `no answer (${result.error ?? 'connection failed'})` : `HTTP ${result.statusCode}`;
          return `Test ${result.callbackType} event ${result.webhookId}: ${result.delivered ? 'delivered' : 'not delivered'}, ${answer}, in ${ms} ms.`;
        });
      });

      dashboard.post('/events/redeliver', async (request, reply) => {
        const { session, form } = await postedBy(request);
        const owner = ownerOf(session, form);
        return act(session, owner, reply, async () => {
          const id = field(form, 'event_id') ?? '';
          await services.webhookRedelivery.redeliver(owner, id);
          return `Event ${id} is scheduled for redelivery.`;
        });
      });
    },
    { prefix: '/dashboard' },
  );
}
