import { principalOf } from '../../auth/principal.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentPatientMatch } from '../../patients/patient-presenter.js';

export const findPatient: Handlers['findPatient'] = async ({ query }, ctx) => {
  const patient = await ctx.services.patients.find(principalOf(ctx), query);
  return { status: 200, body: presentPatientMatch(patient) };
};
