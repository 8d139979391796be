import { notImplemented } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';

/** GET /diagnostics/v0/tests: List lab tests. Scaffolded by `pnpm generate`; replace the body. */
export const listDiagnosticTests: Handlers['listDiagnosticTests'] = async () => {
  throw notImplemented('listDiagnosticTests');
};
