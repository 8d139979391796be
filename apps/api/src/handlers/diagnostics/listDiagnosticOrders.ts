import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /diagnostics/v0/orders: List lab orders. Scaffolded by `pnpm generate`; replace the body. */
export const listDiagnosticOrders: Handlers['listDiagnosticOrders'] = async () => {
  throw notImplemented('listDiagnosticOrders');
};
