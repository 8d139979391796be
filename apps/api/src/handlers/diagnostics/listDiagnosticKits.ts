import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /diagnostics/v0/kits: List lab test kits. Scaffolded by `pnpm generate`; replace the body. */
export const listDiagnosticKits: Handlers['listDiagnosticKits'] = async () => {
  throw notImplemented('listDiagnosticKits');
};
