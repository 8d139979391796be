// The shipped reference data read straight from its files, and distances computed here,
// independently of the service, to check the lookups' answers against.
import { readFileSync } from 'node:fs';
import type { PharmacyLocation } from '../../src/pharmacy-locations/pharmacy-location.js';

const dir = new URL('../../reference-data/', import.meta.url);

/** A location as the shipped file holds it: the directory's record, and its licences, networks and specialty. */
export interface FileLocation extends PharmacyLocation {
  shipping_days: number;
  licensed_states: string[];
  networks: { bin: string; pcn: string | null; group: string | null }[];
  specialty: { categories: string[] } | null;
}

export const LOCATIONS: FileLocation[] = JSON.parse(readFileSync(new URL('pharmacy-locations.json', dir), 'utf8')).locations;

function csv(name: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(new URL(name, dir), 'utf8').trim().split('\n');
  const names = header!.split(',');
  return lines.map((line) => {
    const fields = line.match(/("[^"]*"|[^,]*)(,|$)/g)!.map((f) => f.replace(/,$/, '').replace(/^"|"$/g, ''));
    return Object.fromEntries(names.map((n, i) => [n, fields[i] ?? '']));
  });
}

export const ZIPS = new Map(csv('zip-centroids.csv').map((z) => [z.zip!, { state: z.state!, lat: Number(z.latitude), lon: Number(z.longitude) }]));
export const INVENTORY = csv('pharmacy-inventory.csv').map((r) => ({ location_id: r.location_id!, ndc: r.ndc!, name: r.medication_name!, quantity: r.quantity_on_hand === '' ? null : Number(r.quantity_on_hand) }));

/** Haversine distance in miles (mean Earth radius 3958.7613 mi). */
export function miles(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = (d: number) => (d * Math.PI) / 180;
  const h = Math.sin(r(lat2 - lat1) / 2) ** 2 + Math.cos(r(lat1)) * Math.cos(r(lat2)) * Math.sin(r(lon2 - lon1) / 2) ** 2;
  return 2 * 3958.7613 * Math.asin(Math.sqrt(h));
}

/** Locations by distance from a ZIP code's centroid, nearest first (ties by id), each with its distance rounded to 0.01. */
export function byDistanceFrom(zip: string, locations: readonly FileLocation[] = LOCATIONS) {
  const c = ZIPS.get(zip)!;
  return locations
    .map((l) => ({ l, d: miles(c.lat, c.lon, l.latitude, l.longitude) }))
    .sort((a, b) => a.d - b.d || (a.l.id < b.l.id ? -1 : 1))
    .map(({ l, d }) => ({ id: l.id, distance: Math.round(d * 100) / 100, location: l }));
}

/** The record a lookup answers for a file location. */
export function asAnswered(l: FileLocation, distance: number | null) {
  return {
    id: l.id,
    pharmacy: l.pharmacy,
    npi: l.npi,
    ncpdpid: l.ncpdpid,
    address_to_street1: l.address_to_street1,
    address_to_street2: l.address_to_street2,
    address_to_city: l.address_to_city,
    address_to_state: l.address_to_state,
    address_to_zip: l.address_to_zip,
    address_to_country: l.address_to_country,
    address_to_phone: l.address_to_phone,
    address_to_fax: l.address_to_fax,
    latitude: l.latitude,
    longitude: l.longitude,
    same_day: l.same_day,
    distance_from_origin: distance,
  };
}
