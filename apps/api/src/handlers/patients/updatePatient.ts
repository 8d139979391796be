import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { nowIso } from '../../tokens.js';

export const updatePatient: Handlers['updatePatient'] = async ({ path, body }, ctx) => {
  await ctx.services.patients.update(ownerOf(ctx), path.patient_token, body);
  return {
    status: 202,
    body: { patient_token: path.patient_token, timestamp: nowIso(), status: 'success', details: { message: 'Patient updated.' } },
  };
};
