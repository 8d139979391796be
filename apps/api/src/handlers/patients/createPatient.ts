import { acceptedSimulation } from '../../events/sandbox-simulation.js';
import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';

export const createPatient: Handlers['createPatient'] = async ({ body }, ctx) => {
  const { simulation, ...patient } = body;
  const owner = ownerOf(ctx);
  // Refused with a production key before the patient is written.
  const newRx = acceptedSimulation(owner, simulation)?.newRx;
  const patient_token =
    newRx === undefined
      ? await ctx.services.patients.create(owner, patient)
      : await ctx.services.sandboxPrescriber.admitWithNewRx(owner, patient, newRx, ctx.requestId);
  return { status: 201, body: { patient_token } };
};
