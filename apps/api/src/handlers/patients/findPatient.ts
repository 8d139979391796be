import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentPatientMatch } from '../../patients/patient-presenter.js';

export const findPatient: Handlers['findPatient'] = async ({ query }, ctx) => {
  const patient = await ctx.services.patients.find(ownerOf(ctx), query);
  return { status: 200, body: presentPatientMatch(patient) };
};
