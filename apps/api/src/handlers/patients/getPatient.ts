import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentPatient } from '../../patients/patient-presenter.js';

export const getPatient: Handlers['getPatient'] = async ({ path }, ctx) => {
  const patient = await ctx.services.patients.read(ownerOf(ctx), path.patient_token);
  return { status: 200, body: presentPatient(patient) };
};
