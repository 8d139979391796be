/**
 * A pharmacy location of the reference data (loaded by the operator), in the real
 * platform's shape of a same-day delivery's `external_location`: a location answered by a
 * lookup can be passed straight into a same-day order.
 */
export interface PharmacyLocation {
  /** A version-4 UUID. */
  id: string;
  /** The pharmacy's name (the real platform's `pharmacy`). */
  pharmacy: string;
  /** 10 digits. */
  npi: string;
  /** 7 digits (NCPDP provider id). */
  ncpdpid: string;
  address_to_street1: string;
  address_to_street2: string | null;
  address_to_city: string;
  /** Two upper-case letters. */
  address_to_state: string;
  address_to_zip: string;
  /** Two upper-case letters. */
  address_to_country: string;
  address_to_phone: string | null;
  address_to_fax: string | null;
  latitude: number;
  longitude: number;
  /** Whether couriers pick up same-day orders here. */
  same_day: boolean;
}

/** How other areas find reference locations (same-day delivery resolves `external_location` with it). */
export interface PharmacyLocationDirectory {
  findById(id: string): Promise<PharmacyLocation | undefined>;
  findByNcpdpid(ncpdpid: string): Promise<PharmacyLocation | undefined>;
}
