import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** POST /diagnostics/v0/orders: Order a lab test kit. Scaffolded by `pnpm generate`; replace the body. */
export const createDiagnosticOrder: Handlers['createDiagnosticOrder'] = async () => {
  throw notImplemented('createDiagnosticOrder');
};
