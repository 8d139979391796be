/** The error bodies the API answers, typed from the contract. */
import type { components } from '@pharmacy/contract';

type Schemas = components['schemas'];

/** `400`: validation failures (`validation_errors`) or an unreadable body / another customer's record (`message`). */
export type ValidationErrorBody = Schemas['BadRequestError'];
/** `404` (and other errors with a message, such as `500`). */
export type NotFoundErrorBody = Schemas['ErrorMessage'];
/** `401`: a missing or invalid API key. */
export type UnauthorizedErrorBody = Schemas['UnauthorizedError'];

/** True for a `400` body; `validation_errors` lists the offending fields when the request failed validation. */
export function isValidationError(body: unknown): body is ValidationErrorBody {
  if (!body || typeof body !== 'object') return false;
  const { statusCode, error } = body as Record<string, unknown>;
  return statusCode === 400 && typeof error === 'string';
}
