import type { PharmacyLocation, PharmacyLocationDirectory } from '../../src/pharmacy-locations/pharmacy-location.js';
import type { TestApp } from './test-app.js';

/** The pickup location the same-day sandbox stories name. */
export const PICKUP: PharmacyLocation = {
  id: '6f1c2a3e-8b4d-4c9a-9e2f-7a1b2c3d4e5f',
  pharmacy: 'Example Pharmacy - SoMa',
  npi: '1588667638',
  ncpdpid: '0512345',
  address_to_street1: '2 Mission St',
  address_to_street2: null,
  address_to_city: 'San Francisco',
  address_to_state: 'CA',
  address_to_zip: '94105',
  address_to_country: 'US',
  address_to_phone: null,
  address_to_fax: null,
  latitude: 37.7925,
  longitude: -122.3969,
  same_day: true,
};

/** The reference data's directory is another area's: the app's same-day deliveries resolve PICKUP only. */
export function usePickupDirectory(t: TestApp): void {
  const directory: PharmacyLocationDirectory = {
    findById: async (id) => (id === PICKUP.id ? PICKUP : undefined),
    findByNcpdpid: async (ncpdpid) => (ncpdpid === PICKUP.ncpdpid ? PICKUP : undefined),
  };
  (t.app.services.sameDayDeliveries as unknown as { locations: PharmacyLocationDirectory }).locations = directory;
}
