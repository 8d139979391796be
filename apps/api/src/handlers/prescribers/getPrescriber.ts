import { ownerOf } from '../../http/owner-of.js';
import type { Handlers } from '../../generated/handlers.js';
import { presentPrescriber } from '../../prescribers/prescriber-presenter.js';

export const getPrescriber: Handlers['getPrescriber'] = async ({ path }, ctx) => {
  const prescriber = await ctx.services.prescribers.get(ownerOf(ctx), path.prescriber_token);
  return { status: 200, body: presentPrescriber(prescriber) };
};
