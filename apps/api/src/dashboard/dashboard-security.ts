import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'dashboard_session';
/** The sign-in form's token before there is a session (double submit: this cookie and the form's field must match). */
export const SIGN_IN_COOKIE = 'dashboard_sign_in';
const COOKIE_PATH = '/dashboard';
const SIGN_IN_COOKIE_SECONDS = 3600;

/** What every dashboard answer carries: never cached, nothing from another origin, never framed, no referrer. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** The request's cookies (the first of each name). */
export function cookiesOf(request: FastifyRequest): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    if (name && !(name in cookies)) cookies[name] = part.slice(at + 1).trim();
  }
  return cookies;
}

/** Sets a dashboard cookie: HttpOnly, SameSite=Strict, Path=/dashboard, Secure over https; `maxAgeSeconds` 0 deletes it. */
export function setCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string, maxAgeSeconds: number): void {
  const flags = [`${name}=${value}`, `Path=${COOKIE_PATH}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict'];
  if (request.protocol === 'https') flags.push('Secure');
  const existing = reply.getHeader('set-cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
  reply.header('set-cookie', [...list, flags.join('; ')]);
}

export function setSignInCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  setCookie(request, reply, SIGN_IN_COOKIE, token, SIGN_IN_COOKIE_SECONDS);
}

/** Whether two tokens are equal, in time that does not depend on where they differ (both hashed to one length). */
export function sameToken(given: string | undefined, expected: string | undefined): boolean {
  if (!given || !expected) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Whether the browser says the request came from another site. `Sec-Fetch-Site` decides when
 * sent (anything but `same-origin`, or `none`: typed or bookmarked, is refused): under
 * `Referrer-Policy: no-referrer` browsers send `Origin: null` even for this site's own
 * forms. Without it, an `Origin` that is not this one (`null` included) is refused.
 */
export function isCrossSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  return origin !== `${request.protocol}://${request.host}`;
}
