import { forbidden, notFound } from '../errors.js';
import type { ReferenceLocation, ReferenceSnapshot } from '../pharmacy-locations/reference-snapshot.js';
import type { CoverageRepository } from './coverage-repository.js';

/** A prescription plan as a card shows it. */
export interface CoveragePlan {
  ship_to_state: string;
  bin: string;
  pcn?: string | undefined;
  group_number?: string | undefined;
}

/** The answer of `GET /v1/pharmacy-coverage`. */
export interface CoverageAnswer {
  pharmacy_name: string;
  npi: string;
  address: { street_1: string; street_2: string | null; city: string; state: string; zip: string; phone: string | null };
  location_id: string;
  ncpdpid: string;
  ships_to_states: string[];
  in_network: boolean;
}

/** Where the reference data comes from (the pharmacy locations area). */
export interface ReferenceSource {
  snapshot(): Promise<ReferenceSnapshot>;
}

/** Whether one of the location's networks takes the plan: same BIN, and its PCN and group (where it names them) equal the plan's. */
export function inNetwork(location: ReferenceLocation, plan: CoveragePlan): boolean {
  return location.networks.some(
    (n) => n.bin === plan.bin && (n.pcn === null || n.pcn === plan.pcn) && (n.group_number === null || n.group_number === plan.group_number),
  );
}

/**
 * Pharmacy coverage: the best retail location for a ship-to state and a plan (in network
 * first, then shortest shipping time, then in the state itself, then lowest NCPDP id), for
 * customers the operator enabled (`pnpm admin coverage enable`).
 */
export class CoverageService {
  constructor(
    private readonly repository: CoverageRepository,
    private readonly reference: ReferenceSource,
  ) {}

  isEnabled(customerId: string): Promise<boolean> {
    return this.repository.isEnabled(customerId);
  }

  setEnabled(customerId: string, enabled: boolean): Promise<boolean> {
    return this.repository.setEnabled(customerId, enabled);
  }

  async best(customerId: string, plan: CoveragePlan): Promise<CoverageAnswer> {
    if (!(await this.repository.isEnabled(customerId))) throw forbidden('Pharmacy coverage lookups are not enabled for this customer.');
    const snapshot = await this.reference.snapshot();
    const ranked = snapshot.locations
      .filter((l) => !l.specialty_categories && l.licensed_states.includes(plan.ship_to_state))
      .map((location) => ({ location, network: inNetwork(location, plan) }))
      .sort(
        (a, b) =>
          Number(b.network) - Number(a.network) ||
          a.location.shipping_days - b.location.shipping_days ||
          Number(b.location.address_to_state === plan.ship_to_state) - Number(a.location.address_to_state === plan.ship_to_state) ||
          (a.location.ncpdpid < b.location.ncpdpid ? -1 : 1),
      );
    const best = ranked[0];
    if (!best) throw notFound('No pharmacy location ships to this state.');
    const l = best.location;
    return {
      pharmacy_name: l.pharmacy,
      npi: l.npi,
      address: { street_1: l.address_to_street1, street_2: l.address_to_street2, city: l.address_to_city, state: l.address_to_state, zip: l.address_to_zip, phone: l.address_to_phone },
      location_id: l.id,
      ncpdpid: l.ncpdpid,
      ships_to_states: l.licensed_states,
      in_network: best.network,
    };
  }
}
