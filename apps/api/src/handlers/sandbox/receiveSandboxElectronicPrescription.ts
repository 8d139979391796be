import { ownerOf } from '../../http/owner-of.js';
import { forbidden } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';
import { SANDBOX_PRESCRIPTION_DEFAULTS } from '../../sandbox/sandbox-prescriptions.js';

export const SANDBOX_ONLY = 'This operation is available in the sandbox only.';

/** POST /v1/sandbox/electronic_prescriptions: a prescriber's system, played by the sandbox. */
export const receiveSandboxElectronicPrescription: Handlers['receiveSandboxElectronicPrescription'] = async ({ body }, ctx) => {
  const owner = ownerOf(ctx);
  if (owner.environment !== 'sandbox') throw forbidden(SANDBOX_ONLY);
  const { patient_token, refills, ...fields } = body;
  const received = await ctx.services.operations.receiveElectronicPrescription(owner, patient_token, {
    ...SANDBOX_PRESCRIPTION_DEFAULTS,
    ...fields,
    ...(refills !== undefined ? { refills } : {}),
  });
  return {
    status: 201,
    body: {
      prescription_token: received.prescription_token,
      patient_token: received.patient_token,
      patient_token_duplicates: received.patient_token_duplicates,
      message: 'Electronic prescription received.',
    },
  };
};
