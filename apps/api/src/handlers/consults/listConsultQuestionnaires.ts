import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

export const listConsultQuestionnaires: Handlers['listConsultQuestionnaires'] = async (_input, ctx) => {
  return { status: 200, body: await ctx.services.consults.questionnaires(ownerOf(ctx).environment) };
};
