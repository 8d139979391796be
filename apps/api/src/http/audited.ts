import type { FastifyRequest } from 'fastify';
import type { AuditEntry, AuditTrail } from '../audit/audit-trail.js';
import type { Principal } from '../auth/principal.js';
import type { RouteDefinition } from './route-definition.js';

/** What one call of an operation was given and answered, where its record ids are looked for. */
export interface AuditedCall {
  path: unknown;
  query: unknown;
  body: unknown;
  /** The 2xx answer's body; absent when the call failed. */
  response?: unknown;
}

/** Records one call: the request, what it was given and answered, and the status answered. */
export type AuditCall = (request: FastifyRequest, call: AuditedCall, status: number) => void;

/** Collects the values at `path` (`[]` steps into every item of an array) under `value`. */
function collect(value: unknown, path: readonly string[], at: number, out: unknown[]): void {
  if (at === path.length) {
    out.push(value);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const step = path[at]!;
  if (step === '[]') {
    if (Array.isArray(value)) for (const item of value) collect(item, path, at + 1, out);
    return;
  }
  if (Object.hasOwn(value, step)) collect((value as Record<string, unknown>)[step], path, at + 1, out);
}

/** Who called, as the audit trail names them (built field by field: this runs on every call). */
function entryOf(principal: Principal, operation: string, action: AuditEntry['action'], status: number, request: FastifyRequest, recordIds: unknown[]): AuditEntry {
  const environment = principal.kind === 'tenant' ? null : principal.environment;
  const actorType = principal.kind === 'api-key' ? 'api_key' : principal.kind === 'bearer' ? 'client' : 'tenant';
  const actorId = principal.kind === 'api-key' ? principal.keyId : principal.kind === 'bearer' ? principal.clientId : null;
  return { customerId: principal.customerId, environment, actorType, actorId, operation, action, status, requestId: request.id, source: request.ip, recordIds };
}

/**
 * The audit of a route that reads or writes patient data (its `audit` in the route table,
 * from the spec's `x-phi`), or undefined for one that does not. Every call is recorded,
 * failed ones too (an attempt is an access to audit), with who called, the operation, the
 * status and the record ids found where the spec puts them.
 */
export function auditCalls(route: RouteDefinition, trail: AuditTrail): AuditCall | undefined {
  const audit = route.audit;
  if (!audit || !trail.enabled) return undefined;
  if (route.security.length === 0) {
    throw new Error(`Operation ${route.operationId} touches patient data (x-phi) but has no security: the audit trail needs a caller`);
  }
  const places = audit.recordIds.map(([place, ...path]) => ({ place: place as keyof AuditedCall, path }));
  return (request, call, status) => {
    if (!request.principal) return; // refused before any patient data was reached
    const recordIds: unknown[] = [];
    for (const { place, path } of places) collect(call[place], path, 0, recordIds);
    trail.record(entryOf(request.principal, route.operationId, audit.action, status, request, recordIds));
  };
}
