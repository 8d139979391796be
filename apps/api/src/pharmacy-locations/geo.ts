/** Mean radius of the Earth in statute miles (IUGG mean radius, 6371.0088 km). */
export const EARTH_RADIUS_MILES = 3958.7613;

/** Great-circle distance in miles between two WGS 84 points (haversine formula). */
export function greatCircleMiles(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Miles to two decimal places (the real platform's `distance_from_origin` precision, 0.01). */
export function roundMiles(miles: number): number {
  return Math.round(miles * 100) / 100;
}

/** The five digits of a ZIP or ZIP+4 code. */
export function zip5(zip: string): string {
  return zip.slice(0, 5);
}
