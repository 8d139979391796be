import type { Principal } from '../auth/principal.js';
import type { Services } from '../services.js';

type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : undefined;
type AnyContent<T> = T extends { content: infer C } ? C[keyof C] : undefined;
type Params<Op, Where extends string> = Op extends { parameters: { [K in Where]?: infer P } }
  ? [P] extends [undefined | never] ? Record<string, never> : NonNullable<P>
  : Record<string, never>;

/** What a handler receives: validated path, query and header parameters and body. */
export interface OperationInput<Op> {
  path: Params<Op, 'path'>;
  query: Params<Op, 'query'>;
  /** The header parameters the operation declares, by the spec's spelling of their names. */
  headers: Params<Op, 'header'>;
  body: Op extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : undefined;
}

type SuccessStatus = 200 | 201 | 202 | 204 | 304;

/** What a handler answers: one of the operation's documented success statuses (or `304` of a conditional read) and its body. */
export type OperationOutput<Op> = Op extends { responses: infer R }
  ? {
      [S in keyof R & SuccessStatus]: { status: S; body: AnyContent<R[S]>; contentType?: string; headers?: Readonly<Record<string, string>> };
    }[keyof R & SuccessStatus]
  : never;

export interface RequestContext {
  /** Who is calling, as the operation's security scheme established it; null on public operations. */
  principal: Principal | null;
  /** The request's id (`x-request-id`); work the request causes later (jobs, deliveries) carries it. */
  requestId: string;
  services: Services;
  /**
   * A request header the spec cannot declare as a parameter (`Authorization`, which OpenAPI
   * leaves to security schemes): the token exchange reads HTTP Basic client credentials here.
   */
  header(name: string): string | undefined;
}
