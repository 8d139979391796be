import { greatCircleMiles, roundMiles } from './geo.js';
import type { PharmacyLocation } from './pharmacy-location.js';
import type { ReferenceRows } from './reference-data-repository.js';
import type { PharmacyLocationNetworksTable, ZipCentroidsTable } from './reference-data-tables.js';

/** A location with what the lookups and coverage need of it. */
export interface ReferenceLocation extends PharmacyLocation {
  shipping_days: number;
  /** States it is licensed to ship to, alphabetical. */
  licensed_states: string[];
  networks: Omit<PharmacyLocationNetworksTable, 'location_id'>[];
  /** A specialty pharmacy's therapeutic categories; null for a retail location. */
  specialty_categories: string[] | null;
}

export interface StockedItem {
  location: ReferenceLocation;
  medication_name: string;
  quantity_on_hand: number | null;
}

/** A location and its great-circle distance from an origin, in miles (rounded to 0.01). */
export interface LocationDistance {
  location: ReferenceLocation;
  distance: number;
}

export interface Plan {
  bin: string;
  pcn?: string | undefined;
  group_number?: string | undefined;
}

/** Whether a network takes the plan: same BIN, and the network's PCN and group (when it names them) equal the plan's. */
export function networkTakes(network: Omit<PharmacyLocationNetworksTable, 'location_id'>, plan: Plan): boolean {
  return network.bin === plan.bin && (network.pcn === null || network.pcn === plan.pcn) && (network.group_number === null || network.group_number === plan.group_number);
}

/** The reference data of one moment, indexed in memory (one per process, refreshed on import). */
export class ReferenceSnapshot {
  readonly locations: readonly ReferenceLocation[];
  private readonly byId = new Map<string, ReferenceLocation>();
  private readonly byNcpdpid = new Map<string, ReferenceLocation>();
  private readonly byZip = new Map<string, ReferenceLocation[]>();
  private readonly zips = new Map<string, ZipCentroidsTable>();
  private readonly stock = new Map<string, StockedItem[]>();

  constructor(rows: ReferenceRows) {
    const licenses = new Map<string, string[]>();
    for (const l of rows.licenses) (licenses.get(l.location_id) ?? licenses.set(l.location_id, []).get(l.location_id)!).push(l.state);
    const networks = new Map<string, ReferenceLocation['networks']>();
    for (const { location_id, ...n } of rows.networks) (networks.get(location_id) ?? networks.set(location_id, []).get(location_id)!).push(n);
    this.locations = rows.locations.map((row) => {
      const location: ReferenceLocation = {
        id: row.id,
        pharmacy: row.pharmacy,
        npi: row.npi,
        ncpdpid: row.ncpdpid,
        address_to_street1: row.address_to_street1,
        address_to_street2: row.address_to_street2,
        address_to_city: row.address_to_city,
        address_to_state: row.address_to_state,
        address_to_zip: row.address_to_zip,
        address_to_country: row.address_to_country,
        address_to_phone: row.address_to_phone,
        address_to_fax: row.address_to_fax,
        latitude: Number(row.latitude),
        longitude: Number(row.longitude),
        same_day: Number(row.same_day) === 1,
        shipping_days: Number(row.shipping_days),
        licensed_states: (licenses.get(row.id) ?? []).sort(),
        networks: networks.get(row.id) ?? [],
        specialty_categories: row.specialty_categories ? row.specialty_categories.split(',') : null,
      };
      this.byId.set(location.id, location);
      this.byNcpdpid.set(location.ncpdpid, location);
      const zip = location.address_to_zip.slice(0, 5);
      (this.byZip.get(zip) ?? this.byZip.set(zip, []).get(zip)!).push(location);
      return location;
    });
    for (const zip of rows.zips) this.zips.set(zip.zip, { ...zip, latitude: Number(zip.latitude), longitude: Number(zip.longitude) });
    for (const item of rows.inventory) {
      const location = this.byId.get(item.location_id);
      if (!location) continue;
      const stocked = { location, medication_name: item.medication_name, quantity_on_hand: item.quantity_on_hand === null ? null : Number(item.quantity_on_hand) };
      (this.stock.get(item.ndc) ?? this.stock.set(item.ndc, []).get(item.ndc)!).push(stocked);
    }
  }

  get inventorySize(): number {
    let n = 0;
    for (const items of this.stock.values()) n += items.length;
    return n;
  }

  get zipCount(): number {
    return this.zips.size;
  }

  byLocationId(id: string): ReferenceLocation | undefined {
    return this.byId.get(id.toLowerCase());
  }

  byNcpdp(ncpdpid: string): ReferenceLocation | undefined {
    return this.byNcpdpid.get(ncpdpid);
  }

  /** The centroid of a ZIP code (its five digits), undefined when the table lacks it. */
  centroid(zip: string): ZipCentroidsTable | undefined {
    return this.zips.get(zip.slice(0, 5));
  }

  inZip(zip: string): readonly ReferenceLocation[] {
    return this.byZip.get(zip.slice(0, 5)) ?? [];
  }

  /** The stock of a product (11-digit NDC) at every location that lists it. */
  stockOf(ndc: string): readonly StockedItem[] {
    return this.stock.get(ndc) ?? [];
  }

  /**
   * Locations that pass `filter`, within `radiusMiles` of the point, nearest first (ties by
   * id). A scan with a cheap latitude band before the great-circle distance: the shipped
   * sample answers in microseconds.
   */
  nearest(latitude: number, longitude: number, radiusMiles: number, filter: (l: ReferenceLocation) => boolean = () => true): LocationDistance[] {
    const band = radiusMiles / 68.7 + 0.01;
    const found: LocationDistance[] = [];
    for (const location of this.locations) {
      if (Math.abs(location.latitude - latitude) > band || !filter(location)) continue;
      const miles = greatCircleMiles(latitude, longitude, location.latitude, location.longitude);
      if (miles <= radiusMiles) found.push({ location, distance: miles });
    }
    return rounded(found);
  }

  /** Every location with its distance from the point, nearest first. */
  byDistance(latitude: number, longitude: number, locations: readonly ReferenceLocation[]): LocationDistance[] {
    return rounded(locations.map((location) => ({ location, distance: greatCircleMiles(latitude, longitude, location.latitude, location.longitude) })));
  }
}

/** Nearest first by exact distance (ties by id), then each distance rounded to 0.01 mile. */
function rounded(found: LocationDistance[]): LocationDistance[] {
  return found.sort((a, b) => a.distance - b.distance || (a.location.id < b.location.id ? -1 : 1)).map((d) => ({ ...d, distance: roundMiles(d.distance) }));
}
