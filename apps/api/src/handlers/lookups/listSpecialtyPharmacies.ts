import { HttpError, invalidField, notFound } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

/**
 * GET /v1/specialty_pharmacies: the specialty pharmacies that stock the prescription's
 * product (any, for a prescription named only by its prescriber), in network for the plan
 * first. The prescription and insurance records must be the caller's: another customer's
 * answer `404` like unknown ones.
 */
export const listSpecialtyPharmacies: Handlers['listSpecialtyPharmacies'] = async ({ query }, ctx) => {
  const owner = ownerOf(ctx);
  if (query.prescription_token === undefined && query.prescriber_npi === undefined) throw invalidField('prescription_token', 'is required');
  if (query.prescription_token !== undefined && query.prescriber_npi !== undefined) throw invalidField('prescriber_npi', 'is not allowed');
  if (query.insurance_token === undefined && query.bin === undefined) throw invalidField('insurance_token', 'is required');
  if (query.insurance_token !== undefined && query.bin !== undefined) throw invalidField('bin', 'is not allowed');
  for (const key of ['pcn', 'group_number'] as const) if (query[key] !== undefined && query.bin === undefined) throw invalidField(key, 'is not allowed');

  let ndc: string | null = null;
  if (query.prescription_token !== undefined) {
    try {
      const rx = await ctx.services.prescriptions.get(owner, query.prescription_token);
      ndc = rx.prescribed_ndc?.replace(/-/g, '') ?? null;
    } catch (error) {
      // Another customer's prescription does not exist here (the operation documents 404 only).
      if (error instanceof HttpError && error.statusCode === 400) throw notFound('Unable to find Prescription.');
      throw error;
    }
  }
  const plan =
    query.insurance_token !== undefined
      ? await ctx.services.insurances.get(owner, query.insurance_token).then((i) => ({ bin: i.rx_bin, pcn: i.pcn, group_number: i.rx_group }))
      : { bin: query.bin!, pcn: query.pcn, group_number: query.group_number };
  return { status: 200, body: { results: await ctx.services.locationLookups.specialtyPharmacies(ndc, plan) } };
};
