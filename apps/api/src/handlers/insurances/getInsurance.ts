import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentInsurance } from '../../insurances/insurance-presenter.js';

export const getInsurance: Handlers['getInsurance'] = async ({ path }, ctx) => {
  const insurance = await ctx.services.insurances.get(ownerOf(ctx), path.insurance_token);
  return { status: 200, body: presentInsurance(insurance) };
};
