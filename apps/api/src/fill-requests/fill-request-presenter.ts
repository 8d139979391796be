import type { components } from '@pharmacy/contract';
import type { FillRequestRow } from './fill-request-repository.js';
import { FILL_REQUEST_RECEIVED, type CreatedFillRequest, type FillRequestRecord } from './fill-request-service.js';

type Schemas = components['schemas'];

/** The receipt; a request held as too soon names the scheduled fill request that submits it, and says when. */
export function presentFillRequestReceipt({ row, scheduled }: CreatedFillRequest): Schemas['FillRequestReceipt'] {
  return {
    request_id: row.token,
    timestamp: row.created_at,
    status: row.status as Schemas['FillRequestStatus'],
    details: scheduled
      ? { message: `Fill request received. It is too soon to refill: it is held and will be submitted on ${scheduled.submit_on}.`, metadata: row.metadata, scheduled_fill_request: scheduled }
      : { message: FILL_REQUEST_RECEIVED, metadata: row.metadata },
  };
}

/** The request as submitted (stored payload) with its designed fields. */
export function presentFillRequest({ row, copayRequestIds }: FillRequestRecord): Schemas['FillRequest'] {
  // A held request's payload keeps its sandbox `simulation`, which is not part of the record.
  const { simulation: _simulation, ...submitted } = JSON.parse(row.payload) as Omit<Schemas['FillRequest'], 'request_id' | 'status' | 'created_at' | 'copay_request_ids'> & { simulation?: unknown };
  return {
    ...submitted,
    request_id: row.token,
    status: row.status as Schemas['FillRequestStatus'],
    created_at: row.created_at,
    copay_request_ids: copayRequestIds,
  };
}

export function presentFillRequestListItem(row: FillRequestRow): Schemas['FillRequestListItem'] {
  return {
    request_id: row.token,
    patient_token: row.patient_token,
    status: row.status as Schemas['FillRequestStatus'],
    metadata: row.metadata,
    shipping_method: row.shipping_method as Schemas['ShippingMethod'],
    created_at: row.created_at,
    order_token: row.order_token,
  };
}
