import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /v0/orders/register: Create an order for a kit already held. Scaffolded by `pnpm generate`; replace the body. */
export const registerDiagnosticOrder: Handlers['registerDiagnosticOrder'] = async () => {
  throw notImplemented('registerDiagnosticOrder');
};
