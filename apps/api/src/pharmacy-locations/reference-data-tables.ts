import type { Flag } from '../db/database.js';
import type { PharmacyLocation } from './pharmacy-location.js';

/** A pharmacy location of the reference data (shared by every customer): the directory's record, with what lookups and coverage also need. */
export interface PharmacyLocationsTable extends Omit<PharmacyLocation, 'same_day'> {
  same_day: Flag;
  /** Days an order takes from this location to the patient by mail (coverage breaks ties with it). */
  shipping_days: number;
  /** A specialty pharmacy's therapeutic categories, comma-separated; null for a retail location. */
  specialty_categories: string | null;
}

/** A state a location is licensed to ship to. */
export interface PharmacyLocationLicensesTable {
  location_id: string;
  state: string;
}

/** A plan network a location is in: a BIN, and when set, only that PCN and group. */
export interface PharmacyLocationNetworksTable {
  location_id: string;
  bin: string;
  pcn: string | null;
  group_number: string | null;
}

/** Units of a product (by 11-digit NDC) on hand at a location; null when it does not report counts. */
export interface PharmacyInventoryTable {
  location_id: string;
  ndc: string;
  medication_name: string;
  quantity_on_hand: number | null;
}

/** The centre of a ZIP code: where an address in it is taken to be. */
export interface ZipCentroidsTable {
  zip: string;
  city: string;
  state: string;
  latitude: number;
  longitude: number;
}

declare module '../db/database.js' {
  interface Database {
    pharmacy_locations: PharmacyLocationsTable;
    pharmacy_location_licenses: PharmacyLocationLicensesTable;
    pharmacy_location_networks: PharmacyLocationNetworksTable;
    pharmacy_inventory: PharmacyInventoryTable;
    zip_centroids: ZipCentroidsTable;
  }
}
