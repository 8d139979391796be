import type { RouteDefinition } from './route-definition.js';

/** Midnight UTC of a `YYYY-MM-DD` date, in milliseconds. */
function midnightUtc(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

/**
 * The headers every answer of a deprecated operation carries (spec/VERSIONING.md):
 * `Deprecation` (RFC 9745: `@` and the Unix seconds of when it was deprecated), `Sunset`
 * (RFC 8594: the HTTP-date after which it may stop being served) and a `Link` to its
 * reference docs (`rel="deprecation"`, RFC 9745 §3). Undefined for an operation that is not deprecated.
 */
export function deprecationHeaders(route: Pick<RouteDefinition, 'operationId' | 'deprecation'>): Record<string, string> | undefined {
  if (!route.deprecation) return undefined;
  const { deprecatedAt, sunset } = route.deprecation;
  return {
    deprecation: `@${Math.floor(midnightUtc(deprecatedAt) / 1000)}`,
    sunset: new Date(midnightUtc(sunset)).toUTCString(),
    link: `</docs#operation/${encodeURIComponent(route.operationId)}>; rel="deprecation"; type="text/html"`,
  };
}
