import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentPrescription } from '../../prescriptions/prescription-presenter.js';

export const getPrescription: Handlers['getPrescription'] = async ({ path }, ctx) => {
  const prescription = await ctx.services.prescriptions.get(ownerOf(ctx), path.token);
  return { status: 200, body: { prescription: presentPrescription(prescription) } };
};
