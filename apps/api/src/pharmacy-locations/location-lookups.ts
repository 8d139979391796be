import { invalidField, notFound } from '../errors.js';
import type { PharmacyLocations } from './pharmacy-location-service.js';
import type { PharmacyLocation } from './pharmacy-location.js';
import type { ReferenceLocation, ReferenceSnapshot } from './reference-snapshot.js';

/** A location as the lookups answer it: the record, and its distance from the point asked about (null where none applies). */
export interface LocationAnswer extends PharmacyLocation {
  distance_from_origin: number | null;
}

export function locationAnswer(location: ReferenceLocation, distance: number | null = null): LocationAnswer {
  const { shipping_days, licensed_states, networks, specialty_categories, ...record } = location;
  return { ...record, distance_from_origin: distance };
}

export interface AddressQuery {
  street1?: string | undefined;
  street2?: string | undefined;
  city?: string | undefined;
  state?: string | undefined;
  zip: string;
}

/** A prescription plan as a card shows it. */
export interface PlanQuery {
  bin: string;
  pcn?: string | null | undefined;
  group_number?: string | null | undefined;
}

export interface SpecialtyAnswer {
  name: string;
  ncpdp_id: string;
  npi: string;
  address: { street1: string; street2: string | null; city: string; state: string; zip: string; country: string };
  phone: string;
  fax: string | null;
  in_network: boolean;
  ships_to_states: string[];
}

export interface AvailabilityAnswer {
  ndc: string;
  medication_name: string | null;
  available: boolean;
  quantity_requested: number | null;
  quantity_on_hand: number | null;
  locations: { location: LocationAnswer; available: boolean; quantity_on_hand: number | null }[];
  checked_at: string;
}

const USPS: Record<string, string> = {
  street: 'st', avenue: 'ave', boulevard: 'blvd', road: 'rd', drive: 'dr', lane: 'ln', court: 'ct', place: 'pl', parkway: 'pkwy',
  highway: 'hwy', square: 'sq', terrace: 'ter', circle: 'cir', way: 'way', suite: 'ste', apartment: 'apt', floor: 'fl', building: 'bldg',
  north: 'n', south: 's', east: 'e', west: 'w', northeast: 'ne', northwest: 'nw', southeast: 'se', southwest: 'sw', unit: 'unit', '#': 'ste',
};

/** An address line compared loosely: case, punctuation and USPS abbreviations do not matter. */
export function normaliseAddressLine(line: string): string {
  return line
    .toLowerCase()
    .replace(/[.,']/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => USPS[word] ?? word)
    .join(' ');
}

/** An NDC as 11 digits (5-4-2): dashed forms are padded per segment; 10 bare digits take the form the inventory knows. */
export function normaliseNdc(ndc: string, known: (ndc11: string) => boolean): string {
  const parts = ndc.split('-');
  if (parts.length === 3) return `${parts[0]!.padStart(5, '0')}${parts[1]!.padStart(4, '0')}${parts[2]!.padStart(2, '0')}`;
  if (ndc.length === 11) return ndc;
  const candidates = [`0${ndc}`, `${ndc.slice(0, 5)}0${ndc.slice(5)}`, `${ndc.slice(0, 9)}0${ndc.slice(9)}`];
  return candidates.find(known) ?? candidates[0]!;
}

/**
 * The lookups over the reference data (`GET /v1/external_locations...`, nearby same-day
 * locations, availability by NDC): every answer is computed from the loaded tables, nearest
 * first by great-circle distance from a ZIP code's centroid.
 */
export class LocationLookups {
  constructor(private readonly locations: PharmacyLocations) {}

  private async origin(zip: string, key = 'zip'): Promise<{ snapshot: ReferenceSnapshot; latitude: number; longitude: number; state: string }> {
    const snapshot = await this.locations.snapshot();
    const centroid = snapshot.centroid(zip);
    if (!centroid) throw invalidField(key, 'cannot be located');
    return { snapshot, latitude: centroid.latitude, longitude: centroid.longitude, state: centroid.state };
  }

  async get(id: string): Promise<LocationAnswer> {
    const location = (await this.locations.snapshot()).byLocationId(id);
    if (!location) throw notFound('Unable to find External Location.');
    return locationAnswer(location);
  }

  /** Every location, nearest the ZIP code's centroid first: `limit` of them from `offset`, and whether more follow. */
  async nearestToZip(zip: string, offset: number, limit: number): Promise<{ results: LocationAnswer[]; more: boolean }> {
    const { snapshot, latitude, longitude } = await this.origin(zip);
    const all = snapshot.byDistance(latitude, longitude, snapshot.locations);
    return { results: all.slice(offset, offset + limit).map((d) => locationAnswer(d.location, d.distance)), more: all.length > offset + limit };
  }

  /** Same-day locations within `radiusMiles` of the address's ZIP code centroid, nearest first, at most 50. */
  async nearbySameDay(address: AddressQuery, radiusMiles: number): Promise<LocationAnswer[]> {
    const { snapshot, latitude, longitude, state } = await this.origin(address.zip);
    if (address.state !== undefined && address.state !== state) throw invalidField('state', 'does not match zip');
    return snapshot
      .nearest(latitude, longitude, radiusMiles, (l) => l.same_day)
      .slice(0, 50)
      .map((d) => locationAnswer(d.location, d.distance));
  }

  /** The location at an address, or undefined (see `GET /v1/external_location_matches`). */
  async match(address: AddressQuery): Promise<LocationAnswer | undefined> {
    const snapshot = await this.locations.snapshot();
    const same = (a: string | null | undefined, b: string | undefined) => b === undefined || normaliseAddressLine(a ?? '') === normaliseAddressLine(b);
    const inZip = snapshot.inZip(address.zip);
    const precise = address.street1 !== undefined || address.street2 !== undefined || address.city !== undefined || address.state !== undefined;
    const found = inZip.filter(
      (l) =>
        same(l.address_to_street1, address.street1) &&
        same(l.address_to_street2, address.street2) &&
        same(l.address_to_city, address.city) &&
        (address.state === undefined || l.address_to_state === address.state),
    );
    if (found.length === 1 && (precise || inZip.length === 1)) return locationAnswer(found[0]!);
    return undefined;
  }

  /**
   * The specialty pharmacies that stock the product (every one when `ndc` is null: the
   * product is not known yet), in network for the plan first, then by name; at most 100.
   */
  async specialtyPharmacies(ndc: string | null, plan: PlanQuery): Promise<SpecialtyAnswer[]> {
    const snapshot = await this.locations.snapshot();
    const stocking = ndc === null ? undefined : new Set(snapshot.stockOf(ndc).map((s) => s.location.id));
    const takes = (l: ReferenceLocation) =>
      l.networks.some((n) => n.bin === plan.bin && (n.pcn === null || n.pcn === (plan.pcn ?? undefined)) && (n.group_number === null || n.group_number === (plan.group_number ?? undefined)));
    return snapshot.locations
      .filter((l) => l.specialty_categories && (!stocking || stocking.has(l.id)))
      .map((l) => ({ l, network: takes(l) }))
      .sort((a, b) => Number(b.network) - Number(a.network) || (a.l.pharmacy < b.l.pharmacy ? -1 : a.l.pharmacy > b.l.pharmacy ? 1 : a.l.id < b.l.id ? -1 : 1))
      .slice(0, 100)
      .map(({ l, network }) => ({
        name: l.pharmacy,
        ncpdp_id: l.ncpdpid,
        npi: l.npi,
        address: { street1: l.address_to_street1, street2: l.address_to_street2, city: l.address_to_city, state: l.address_to_state, zip: l.address_to_zip, country: l.address_to_country },
        phone: l.address_to_phone ?? '',
        fax: l.address_to_fax,
        in_network: network,
        ships_to_states: l.licensed_states,
      }));
  }

  async availability(ndcAsked: string, quantity: number | undefined, zip: string | undefined, now: Date): Promise<AvailabilityAnswer> {
    const snapshot = zip !== undefined ? (await this.origin(zip)).snapshot : await this.locations.snapshot();
    const ndc = normaliseNdc(ndcAsked, (candidate) => snapshot.stockOf(candidate).length > 0);
    const stock = snapshot.stockOf(ndc);
    const canDispense = (q: number | null) => (q === null ? true : q > 0 && (quantity === undefined || q >= quantity));
    let ordered: { item: (typeof stock)[number]; distance: number | null }[];
    if (zip !== undefined) {
      const { latitude, longitude } = await this.origin(zip);
      const distances = new Map(snapshot.byDistance(latitude, longitude, stock.map((s) => s.location)).map((d, i) => [d.location.id, { d: d.distance, i }]));
      ordered = stock.map((item) => ({ item, distance: distances.get(item.location.id)!.d, rank: distances.get(item.location.id)!.i })).sort((a, b) => a.rank - b.rank);
    } else {
      ordered = [...stock].sort((a, b) => (a.location.pharmacy < b.location.pharmacy ? -1 : a.location.pharmacy > b.location.pharmacy ? 1 : a.location.id < b.location.id ? -1 : 1)).map((item) => ({ item, distance: null }));
    }
    const locations = ordered.slice(0, 100).map(({ item, distance }) => ({
      location: locationAnswer(item.location, distance),
      available: canDispense(item.quantity_on_hand),
      quantity_on_hand: item.quantity_on_hand,
    }));
    return {
      ndc,
      medication_name: stock[0]?.medication_name ?? null,
      available: stock.some((s) => canDispense(s.quantity_on_hand)),
      quantity_requested: quantity ?? null,
      quantity_on_hand: stock.length && stock.every((s) => s.quantity_on_hand !== null) ? stock.reduce((n, s) => n + s.quantity_on_hand!, 0) : stock.length ? null : 0,
      locations,
      checked_at: now.toISOString(),
    };
  }
}
