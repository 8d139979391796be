import type { components } from '@pharmacy/contract';
import type { Owner } from '../auth/principal.js';
import { now as clockNow } from '../clock.js';
import { ownerColumns, visibleTo } from '../db/ownership.js';
import { executeInserts } from '../db/transactor.js';
import { notFound, validationFailed, type ValidationErrorItem } from '../errors.js';
import type { UnitsOfWork } from '../events/unit-of-work.js';
import type { InsuranceService } from '../insurances/insurance-service.js';
import { decodeCursor, encodeCursor } from '../pagination.js';
import type { PatientService } from '../patients/patient-service.js';
import type { PharmacyLocation, PharmacyLocationDirectory } from '../pharmacy-locations/pharmacy-location.js';
import type { PrescriptionService } from '../prescriptions/prescription-service.js';
import { recordToken } from '../tokens.js';
import type { SameDayDeliveryRepository, SameDayDeliveryRow } from './same-day-delivery-repository.js';
import { acceptedSimulation } from '../events/sandbox-simulation.js';

type Schemas = components['schemas'];
export type SameDayDeliveryCreate = Schemas['SameDayDeliveryCreate'];
type PickupLocation = Schemas['SameDayDeliveryPickupLocation'];

const SAME_DAY_DELIVERY_NOT_FOUND = 'Unable to find Same Day Delivery.';
const DEFAULT_LIMIT = 20;
const NO_SAME_DAY = 'does not offer same-day delivery';

interface SameDayDeliveryListParams {
  next_page_token?: string;
  status?: Schemas['SameDayDeliveryStatus'];
  limit?: number;
}

export interface SameDayDeliveryPage {
  results: SameDayDeliveryRow[];
  next_page_token: string | null;
}

/** A reference location in the answer's shape. */
function fromReference(location: PharmacyLocation, distance: number | null): PickupLocation {
  return {
    id: location.id,
    pharmacy: location.pharmacy,
    npi: location.npi,
    ncpdpid: location.ncpdpid,
    address_to_street1: location.address_to_street1,
    address_to_street2: location.address_to_street2,
    address_to_city: location.address_to_city,
    address_to_state: location.address_to_state,
    address_to_zip: location.address_to_zip,
    address_to_country: location.address_to_country,
    address_to_phone: location.address_to_phone,
    address_to_fax: location.address_to_fax,
    distance_from_origin: distance,
  };
}

/**
 * Same-day delivery orders: create (checks the patient, the prescriptions, the insurance
 * records and the pickup location, then fills each prescription once), read, list.
 * same-day-delivery-lifecycle.ts carries them on.
 */
export class SameDayDeliveryService {
  constructor(
    private readonly deliveries: SameDayDeliveryRepository,
    private readonly units: UnitsOfWork,
    private readonly patients: PatientService,
    private readonly prescriptions: PrescriptionService,
    private readonly insurances: InsuranceService,
    private readonly locations: PharmacyLocationDirectory,
  ) {}

  /**
   * Creates a `PENDING` order: checks every record the body names (any refusal writes
   * nothing), then in one unit of work fills each prescription (refused when a concurrent
   * fill took its last refill), stores the order and starts its lifecycle (the simulated
   * courier takes up a sandbox order).
   */
  async create(owner: Owner, input: SameDayDeliveryCreate, requestId: string): Promise<SameDayDeliveryRow> {
    const simulation = acceptedSimulation(owner, input.simulation);
    const now = clockNow();
    const patient = await this.patients.get(owner, input.patient_token);
    const insuranceTokens = input.insurance_tokens ?? [];
    const [checked, ownInsurances, location] = await Promise.all([
      this.prescriptions.checkFillable(owner, patient.token, input.prescription_tokens, now, (i) => `prescription_tokens.${i}`),
      this.insurances.tokensOfPatient(patient.token, insuranceTokens),
      this.pickupLocation(input.external_location),
    ]);
    const { byToken } = checked;
    const errors: ValidationErrorItem[] = [...checked.errors];
    insuranceTokens.forEach((token, i) => {
      if (!ownInsurances.has(token)) errors.push({ key: `insurance_tokens.${i}`, message: 'does not exist' });
    });
    if ('error' in location) errors.push(location.error);
    if (errors.length || 'error' in location) throw validationFailed(errors);

    const createdAt = now.toISOString();
    const row: SameDayDeliveryRow = {
      token: recordToken(),
      ...ownerColumns(owner),
      patient_token: patient.token,
      status: 'PENDING',
      status_reason: null,
      prescription_tokens: JSON.stringify(input.prescription_tokens),
      insurance_tokens: JSON.stringify(insuranceTokens),
      shipping_address: JSON.stringify(input.shipping_address),
      external_location: JSON.stringify(location.location),
      delivery_instruction: input.delivery_instruction ?? null,
      metadata: input.metadata ?? null,
      courier: null,
      tracking_url: null,
      eta: null,
      delivered_at: null,
      created_at: createdAt,
      updated_at: createdAt,
    };
    return this.units.run(requestId, async (uow) => {
      for (const [i, token] of input.prescription_tokens.entries()) {
        const outcome = await this.prescriptions.fill(uow.trx, byToken.get(token)!, now);
        if ('refused' in outcome) {
          throw validationFailed([{ key: `prescription_tokens.${i}`, message: outcome.refused ? `is not fillable: it ${outcome.refused}` : 'is not fillable' }]);
        }
      }
      await executeInserts(uow.trx, [this.deliveries.insertOf(row, uow.trx), ...uow.startedInserts(owner, 'same_day_delivery', row.token, simulation)]);
      return row;
    });
  }

  /**
   * The location the courier collects from: a known one (by `ncpdpid`, or a full location
   * whose `id` the reference data holds) as the reference data holds it; a full location
   * not in the reference data as sent (without an `ncpdpid`). An unknown `ncpdpid`, or a
   * known location without same-day delivery, is refused.
   */
  private async pickupLocation(sent: SameDayDeliveryCreate['external_location']): Promise<{ location: PickupLocation } | { error: ValidationErrorItem }> {
    if ('ncpdpid' in sent) {
      const known = await this.locations.findByNcpdpid(sent.ncpdpid);
      if (!known) return { error: { key: 'external_location.ncpdpid', message: 'does not exist' } };
      if (!known.same_day) return { error: { key: 'external_location.ncpdpid', message: NO_SAME_DAY } };
      return { location: fromReference(known, sent.distance_from_origin ?? null) };
    }
    const known = (await this.locations.findById(sent.id)) ?? (await this.locations.findById(sent.id.toLowerCase()));
    if (known) {
      if (!known.same_day) return { error: { key: 'external_location.id', message: NO_SAME_DAY } };
      return { location: fromReference(known, null) };
    }
    return {
      location: {
        id: sent.id.toLowerCase(),
        pharmacy: sent.pharmacy,
        npi: sent.npi,
        ncpdpid: null,
        address_to_street1: sent.address_to_street1,
        address_to_street2: sent.address_to_street2 ?? null,
        address_to_city: sent.address_to_city,
        address_to_state: sent.address_to_state,
        address_to_zip: sent.address_to_zip,
        address_to_country: sent.address_to_country,
        address_to_phone: sent.address_to_phone ?? null,
        address_to_fax: sent.address_to_fax ?? null,
        distance_from_origin: null,
      },
    };
  }

  /** Another customer's order, or one of the other environment, does not exist here (404). */
  async get(owner: Owner, token: string): Promise<SameDayDeliveryRow> {
    return visibleTo(await this.deliveries.findByToken(token), owner, { notFound: () => notFound(SAME_DAY_DELIVERY_NOT_FOUND) });
  }

  /** One page of the owner's orders, newest first, optionally of one status. */
  async list(owner: Owner, params: SameDayDeliveryListParams): Promise<SameDayDeliveryPage> {
    const limit = params.limit ?? DEFAULT_LIMIT;
    // The status is part of the scope: a cursor of one status's list is refused by another's.
    const scope = { owner, list: `same_day_deliveries:${params.status ?? ''}` };
    const cursor = params.next_page_token === undefined ? undefined : decodeCursor(scope, params.next_page_token, 'next_page_token');
    const rows = await this.deliveries.list(owner, {
      status: params.status,
      before: cursor && { created_at: cursor.after, token: cursor.token },
      limit: limit + 1,
    });
    const results = rows.slice(0, limit);
    const last = results[results.length - 1];
    return {
      results,
      next_page_token: rows.length > limit && last ? encodeCursor(scope, { after: last.created_at, token: last.token }) : null,
    };
  }
}
