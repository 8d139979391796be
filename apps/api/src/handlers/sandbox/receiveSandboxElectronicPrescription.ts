import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

/** POST /v1/sandbox/electronic_prescriptions: a prescriber's system, played by the sandbox. */
export const receiveSandboxElectronicPrescription: Handlers['receiveSandboxElectronicPrescription'] = async ({ body }, ctx) => {
  const { patient_token, refills, ...fields } = body;
  const received = await ctx.services.sandboxPrescriber.send(
    ownerOf(ctx),
    patient_token,
    { ...fields, ...(refills !== undefined ? { refills } : {}) },
    ctx.requestId,
  );
  return { status: 201, body: { ...received, message: 'Electronic prescription received.' } };
};
