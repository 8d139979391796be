import { principalOf } from '../../auth/principal.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentPatient } from '../../patients/patient-presenter.js';

export const getPatient: Handlers['getPatient'] = async ({ path }, ctx) => {
  const patient = await ctx.services.patients.get(principalOf(ctx), path.patient_token);
  return { status: 200, body: presentPatient(patient) };
};
