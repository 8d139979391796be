import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

export const createPatient: Handlers['createPatient'] = async ({ body }, ctx) => {
  const patient_token = await ctx.services.patients.create(ownerOf(ctx), body);
  return { status: 201, body: { patient_token } };
};
