import { notFound } from '../../errors.js';
import type { Handlers } from '../../generated/handlers.js';
import { ownerOf } from '../../http/owner-of.js';

/**
 * GET /v1/external_transfers/{id}: nothing in this service creates external transfers yet
 * (the real platform's `POST /v1/prescription/{token}/external_transfer` is not offered), so
 * every id, in either environment and of any customer, is unknown.
 */
export const getExternalTransfer: Handlers['getExternalTransfer'] = async (_input, ctx) => {
  ownerOf(ctx);
  throw notFound('Unable to find External Transfer.');
};
