import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import { now as clockNow } from '../clock.js';
import { ownerOfRow, visibleTo } from '../db/ownership.js';
import { conflict, HttpError, invalidField, LifecycleError, notFound } from '../errors.js';
import type { UnitOfWork, UnitsOfWork } from '../events/unit-of-work.js';
import type { ScheduledActionRepository, ScheduledActionRow } from '../scheduled-fills/scheduled-action-repository.js';
import { nowIso } from '../tokens.js';
import { canceledItemsOf } from './fill-cancellation-repository.js';
import { orderNotFilled } from './fill-events.js';
import type { FillRequestRepository, FillRequestRow } from './fill-request-repository.js';
import type { FillRequestCreate, FillRequestService } from './fill-request-service.js';

type Schemas = components['schemas'];

const NOT_FOUND = 'Scheduled fill request not found.';
const NO_LONGER_HELD = 'The fill request is no longer held.';

/**
 * Fill requests held because they came too soon (`scheduled`), each with the
 * `FILL_REQUEST` scheduled action that submits it: read, moved, canceled by the customer,
 * and submitted by the scheduler when due.
 */
export class HeldFills {
  constructor(
    private readonly fillRequests: FillRequestService,
    private readonly requests: FillRequestRepository,
    private readonly actions: ScheduledActionRepository,
    private readonly units: UnitsOfWork,
  ) {}

  /** The schedule of a held fill request, by its id or by the held request's token. */
  async get(owner: Owner, by: { id?: string; original_fill_request_token?: string }): Promise<ScheduledActionRow> {
    if (by.id === undefined && by.original_fill_request_token === undefined) throw invalidField('id', 'is required');
    if (by.id !== undefined && by.original_fill_request_token !== undefined) throw invalidField('original_fill_request_token', 'is not allowed');
    const action = by.id !== undefined ? await this.actions.findById(by.id) : await this.actions.findForFillRequest(by.original_fill_request_token!);
    return this.visible(action, owner);
  }

  /** `POST /scheduled-fill-requests`: when (and optionally what) to submit for a held request. */
  async schedule(owner: Owner, input: Schemas['ScheduledFillRequestCreate'], requestId: string): Promise<ScheduledActionRow> {
    const held = visibleTo(await this.requests.findByToken(input.original_fill_request_token), owner, { notFound: () => notFound(NOT_FOUND) });
    const action = await this.actions.findForFillRequest(held.token);
    if (held.status !== 'scheduled' || !action || action.status !== 'PENDING') throw conflict(`Fill request ${held.token} is not held: it is ${held.status}.`);
    let payload: string | undefined;
    let body: FillRequestCreate = JSON.parse(held.payload) as FillRequestCreate;
    if (input.fill_request_payload) {
      if (input.fill_request_payload.patient_token !== held.patient_token) throw invalidField('fill_request_payload.patient_token', 'must be the held fill request\'s patient');
      body = input.fill_request_payload;
      payload = JSON.stringify(body);
    }
    return this.move(owner, action, input.submit_on, body, requestId, payload);
  }

  /** `PUT /scheduled-fill-requests/{id}`: a new date. */
  async reschedule(owner: Owner, id: string, submitOn: string, requestId: string): Promise<ScheduledActionRow> {
    const action = this.visible(await this.actions.findById(id), owner);
    if (action.status !== 'PENDING') throw conflict(`The scheduled fill request is ${action.status} and can no longer be changed.`);
    const held = await this.requests.findByToken(action.fill_request_token!);
    const body = JSON.parse(action.payload ?? held!.payload) as FillRequestCreate;
    return this.move(owner, action, submitOn, body, requestId);
  }

  /** Cancels the pending action of a held request canceled through `POST /v1/cancel_request`, in that unit of work. */
  async requestCanceled(uow: UnitOfWork, request: FillRequestRow, at: string): Promise<void> {
    const action = await this.actions.findForFillRequest(request.token, uow.trx);
    if (action?.status === 'PENDING') await this.actions.finish(action.id, 'CANCELLED', { at, reason: 'The fill request was canceled.' }, uow.trx);
  }

  /** `DELETE /scheduled-fill-requests/{id}`: the action `CANCELLED`, the held request `canceled`. Canceling again changes nothing. */
  async cancel(owner: Owner, id: string, requestId: string): Promise<ScheduledActionRow> {
    const action = this.visible(await this.actions.findById(id), owner);
    if (action.status === 'CANCELLED') return action;
    if (action.status !== 'PENDING') throw conflict(`The scheduled fill request is ${action.status} and can no longer be canceled.`);
    const at = nowIso();
    await this.units.run(requestId, async (uow) => {
      // The held request, then its action: the order every unit of work takes them in.
      if (!(await this.requests.endHeld(action.fill_request_token!, 'canceled', at, uow.trx))) throw conflict('The scheduled fill request was submitted or canceled meanwhile.');
      await this.actions.finish(action.id, 'CANCELLED', { at, reason: 'Canceled by the customer.' }, uow.trx);
    });
    return { ...action, status: 'CANCELLED', reason: 'Canceled by the customer.', updated_at: at };
  }

  /**
   * The scheduler's performer for `FILL_REQUEST`: submits the held request (the payload
   * set by `schedule`, else the one held) under its own token. Still too soon: moved to
   * the earliest date. Its records no longer allow it (a prescription refilled, expired,
   * transferred meanwhile): the request ends in `error` with an `ORDER` error event saying
   * why. No longer held (canceled): the action is canceled.
   */
  async submitDue(action: ScheduledActionRow): Promise<void> {
    const owner = ownerOfRow(action);
    const held = await this.requests.findByToken(action.fill_request_token!);
    const requestId = `sched_${action.id}`;
    if (!held || held.status !== 'scheduled') {
      await this.units.run(requestId, (uow) => this.actions.finish(action.id, 'CANCELLED', { at: nowIso(), reason: NO_LONGER_HELD }, uow.trx));
      return;
    }
    const now = clockNow();
    const body = JSON.parse(action.payload ?? held.payload) as FillRequestCreate;
    let checked;
    try {
      checked = await this.fillRequests.check(owner, body, now);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      await this.refuse(action, held, describe(error), requestId);
      return;
    }
    if (checked.heldUntil && checked.heldUntil > now) {
      await this.actions.reschedule(action.id, checked.heldUntil.toISOString(), nowIso());
      return;
    }
    try {
      await this.units.run(requestId, async (uow) => {
        // The held request first (see lockHeld), then the action: done by another process, nothing to do.
        if (!(await this.requests.lockHeld(held.token, uow.trx))) return;
        if (!(await this.actions.finish(action.id, 'COMPLETE', { at: now.toISOString() }, uow.trx))) return;
        // Items canceled while it was held (POST /v1/cancel_request) are not submitted.
        const canceled = await canceledItemsOf(uow.trx, held.token);
        const submitted: FillRequestCreate = {
          ...body,
          ...(body.medications ? { medications: body.medications.filter((m) => !canceled.medications.has(m.prescription_token)) } : {}),
          ...(body.otc_products ? { otc_products: body.otc_products.filter((p) => !canceled.otcProducts.has(p.item)) } : {}),
        };
        await this.fillRequests.submit(uow, owner, submitted, checked, now, held);
      });
    } catch (error) {
      if (error instanceof LifecycleError) return; // no longer held: canceled meanwhile
      if (!(error instanceof HttpError)) throw error;
      await this.refuse(action, held, describe(error), requestId);
    }
  }

  private async refuse(action: ScheduledActionRow, held: FillRequestRow, reason: string, requestId: string): Promise<void> {
    const at = nowIso();
    await this.units.run(requestId, async (uow) => {
      const ended = await this.requests.endHeld(held.token, 'error', at, uow.trx);
      if (!(await this.actions.finish(action.id, 'CANCELLED', { at, reason: ended ? reason.slice(0, 255) : NO_LONGER_HELD }, uow.trx)) || !ended) return;
      await uow.emit(ownerOfRow(held), orderNotFilled(held, 'error', reason.slice(0, 255)));
    });
  }

  private async move(owner: Owner, action: ScheduledActionRow, submitOn: string, body: FillRequestCreate, requestId: string, payload?: string): Promise<ScheduledActionRow> {
    const at = Date.parse(submitOn);
    if (Number.isNaN(at)) throw invalidField('submit_on', 'must be a valid date-time');
    const checked = await this.fillRequests.check(owner, body, clockNow());
    if (checked.heldUntil && at < checked.heldUntil.getTime()) {
      throw invalidField('submit_on', `must not be before ${checked.heldUntil.toISOString()}, the earliest date the refill is allowed`);
    }
    const submit_on = new Date(at).toISOString();
    const updated_at = nowIso();
    await this.units.run(requestId, async (uow) => {
      if (!(await this.actions.reschedule(action.id, submit_on, updated_at, uow.trx, payload))) throw conflict('The scheduled fill request is no longer pending.');
    });
    return { ...action, submit_on, updated_at, ...(payload !== undefined ? { payload } : {}) };
  }

  private visible(action: ScheduledActionRow | undefined, owner: Owner): ScheduledActionRow {
    const found = visibleTo(action, owner, { notFound: () => notFound(NOT_FOUND) });
    if (found.action_type !== 'FILL_REQUEST') throw notFound(NOT_FOUND);
    return found;
  }
}

/** A refusal in words: its message, or each field and what is wrong with it. */
function describe(error: HttpError): string {
  const body = error.body as { message?: string; validation_errors?: { key: string; message: string }[] };
  if (body.validation_errors) return body.validation_errors.map((item) => `${item.key} ${item.message}`).join('; ');
  return body.message ?? error.message;
}
