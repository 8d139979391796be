import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /v0/orders/{orderId}/results: Get lab results of an order. Scaffolded by `pnpm generate`; replace the body. */
export const getDiagnosticOrderResults: Handlers['getDiagnosticOrderResults'] = async () => {
  throw notImplemented('getDiagnosticOrderResults');
};
