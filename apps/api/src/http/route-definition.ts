import type { JsonSchema } from './json-schema.js';

/**
 * One OpenAPI security requirement object, as the spec writes it: the name of a scheme of
 * `components.securitySchemes` to the scopes it needs (`[]` for schemes without scopes),
 * e.g. `{ OAuth2ClientCredentials: ['accounts:delete'] }`.
 */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

/** One row of the generated route table (apps/api/src/generated/routes.ts). */
export interface RouteDefinition<Id extends string = string> {
  operationId: Id;
  method: string;
  path: string;
  /**
   * The operation's security requirements (the spec's `security`, or the document's), in
   * the spec's order: each entry is one way to authorize; `[]` for public operations.
   */
  security: readonly SecurityRequirement[];
  params?: JsonSchema;
  query?: JsonSchema;
  /** The request headers the operation declares (`Idempotency-Key`), by the spec's spelling of their names. */
  headers?: JsonSchema;
  body?: { required: boolean; contentTypes: string[]; schema: JsonSchema };
  responses: Record<string, { contentType: string | null; schema: JsonSchema | null }>;
  /**
   * Present when the operation reads or writes patient data (`x-phi`): each call is recorded
   * in the audit trail with the record ids found at these places (`['path', 'patient_token']`,
   * `['response', 'results', '[]', 'request_id']`: `[]` steps into every item of an array).
   */
  audit?: { action: 'read' | 'write'; recordIds: string[][] };
  /** Present when the operation's errors are answered in a shape of their own (`x-error-shape`): `oauth` (RFC 6749 §5.2), `auto-refill` and `scheduled` (the real platform's envelopes of those operations). */
  errorShape?: 'oauth' | 'auto-refill' | 'scheduled';
  /**
   * Present when the operation is deprecated (`deprecated: true` with `x-deprecated-at` and
   * `x-sunset`, `YYYY-MM-DD`): every answer carries `Deprecation` and `Sunset` headers
   * (http/deprecation-headers.ts, spec/VERSIONING.md).
   */
  deprecation?: { deprecatedAt: string; sunset: string };
}
