import { luhnCheckDigit } from '../check-digits.js';
import type { DocumentProblem } from '../db/environment-documents.js';
import type { PharmacyInventoryTable, PharmacyLocationNetworksTable, ZipCentroidsTable } from './reference-data-tables.js';
import type { PharmacyLocation } from './pharmacy-location.js';

/** A location as a file describes it: the record, where it ships, the plans it takes, what it specialises in. */
export interface LocationRecord extends PharmacyLocation {
  shipping_days: number;
  licensed_states: string[];
  networks: Omit<PharmacyLocationNetworksTable, 'location_id'>[];
  /** Therapeutic categories a specialty pharmacy dispenses; null for a retail location. */
  specialty_categories: string[] | null;
}

export type Reading<T> = { rows: T[]; problems?: undefined } | { rows?: undefined; problems: DocumentProblem[] };

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const STATE = /^[A-Z]{2}$/;
const ZIP = /^[0-9]{5}(-[0-9]{4})?$/;

/** Whether a 10-digit NPI's last digit is Luhn's check digit over 80840 and its first nine. */
export function validNpi(npi: string): boolean {
  return /^[12][0-9]{9}$/.test(npi) && luhnCheckDigit(`80840${npi.slice(0, 9)}`) === Number(npi[9]);
}

/**
 * Reads CSV (RFC 4180: quoted fields may hold commas and doubled quotes; not line breaks)
 * into objects keyed by the header line's names.
 */
export function readCsv(text: string): { line: number; record: Record<string, string> }[] {
  const lines = text.split(/\r?\n/);
  const split = (line: string) => {
    const fields: string[] = [];
    let field = '';
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quoted) {
        if (c === '"' && line[i + 1] === '"') (field += '"'), i++;
        else if (c === '"') quoted = false;
        else field += c;
      } else if (c === '"') quoted = true;
      else if (c === ',') fields.push(field), (field = '');
      else field += c;
    }
    fields.push(field);
    return fields;
  };
  const header = split(lines[0] ?? '').map((h) => h.trim());
  const out: { line: number; record: Record<string, string> }[] = [];
  lines.slice(1).forEach((line, i) => {
    if (!line.trim()) return;
    const fields = split(line);
    out.push({ line: i + 2, record: Object.fromEntries(header.map((h, j) => [h, (fields[j] ?? '').trim()])) });
  });
  return out;
}

/** Records of a `.json` (an array, or an object holding it under `key`) or `.csv` file. */
function records(text: string, fileName: string, key: string): { where: (i: number) => string; list: Record<string, unknown>[] } | DocumentProblem {
  if (fileName.toLowerCase().endsWith('.csv')) {
    const read = readCsv(text);
    return { where: (i) => `line ${read[i]!.line}`, list: read.map((r) => r.record) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { where: fileName, message: `is not valid JSON (${(error as Error).message})` };
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(list)) return { where: fileName, message: `must be an array, or an object with an array \`${key}\`` };
  return { where: (i) => `${key}[${i}]`, list: list as Record<string, unknown>[] };
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');
const optional = (v: unknown) => (text(v) === '' ? null : text(v));
const number = (v: unknown) => (typeof v === 'number' ? v : text(v) === '' ? NaN : Number(text(v)));
const list = (v: unknown) => (Array.isArray(v) ? v.map(text) : text(v) === '' ? [] : text(v).split(/[;|]/).map((s) => s.trim()));

/**
 * Reads pharmacy locations: a JSON file (`{locations: [...]}` or an array, as the shipped
 * `reference-data/pharmacy-locations.json`) or a CSV file with the same column names
 * (`licensed_states` and `specialty_categories` separated by `;`, `networks` as
 * `bin/pcn/group` items separated by `;`, an empty pcn or group matching any).
 */
export function readLocations(body: string, fileName: string): Reading<LocationRecord> {
  const read = records(body, fileName, 'locations');
  if (!('list' in read)) return { problems: [read] };
  const problems: DocumentProblem[] = [];
  const rows: LocationRecord[] = [];
  const ids = new Set<string>();
  const ncpdpids = new Set<string>();
  read.list.forEach((r, i) => {
    const where = read.where(i);
    const bad = (field: string, message: string) => problems.push({ where: `${where}.${field}`, message });
    const networks = (Array.isArray(r.networks) ? r.networks : list(r.networks).filter(Boolean).map((n) => {
      const [bin, pcn, group] = String(n).split('/');
      return { bin, pcn, group };
    })) as Record<string, unknown>[];
    const specialty = r.specialty as { categories?: unknown } | null | undefined;
    const categories = specialty && typeof specialty === 'object' ? list(specialty.categories) : list(r.specialty_categories);
    const row: LocationRecord = {
      id: text(r.id).toLowerCase(),
      pharmacy: text(r.pharmacy),
      npi: text(r.npi),
      ncpdpid: text(r.ncpdpid),
      address_to_street1: text(r.address_to_street1),
      address_to_street2: optional(r.address_to_street2),
      address_to_city: text(r.address_to_city),
      address_to_state: text(r.address_to_state),
      address_to_zip: text(r.address_to_zip),
      address_to_country: text(r.address_to_country) || 'US',
      address_to_phone: optional(r.address_to_phone),
      address_to_fax: optional(r.address_to_fax),
      latitude: number(r.latitude),
      longitude: number(r.longitude),
      same_day: r.same_day === true || text(r.same_day) === 'true' || text(r.same_day) === '1',
      shipping_days: text(r.shipping_days) === '' ? 3 : number(r.shipping_days),
      licensed_states: [...new Set(list(r.licensed_states))].sort(),
      networks: networks.map((n) => ({ bin: text(n.bin), pcn: optional(n.pcn), group_number: optional(n.group_number ?? n.group) })),
      specialty_categories: categories.length ? categories : null,
    };
    if (!UUID_V4.test(row.id)) bad('id', 'must be a version-4 UUID');
    else if (ids.has(row.id)) bad('id', 'is repeated');
    ids.add(row.id);
    if (!row.pharmacy || row.pharmacy.length > 255) bad('pharmacy', 'is required (at most 255 characters)');
    if (!validNpi(row.npi)) bad('npi', 'must be 10 digits with a valid check digit');
    if (!/^[0-9]{7}$/.test(row.ncpdpid)) bad('ncpdpid', 'must be 7 digits');
    else if (ncpdpids.has(row.ncpdpid)) bad('ncpdpid', 'is repeated');
    ncpdpids.add(row.ncpdpid);
    for (const field of ['address_to_street1', 'address_to_city'] as const) if (!row[field]) bad(field, 'is required');
    if (!STATE.test(row.address_to_state)) bad('address_to_state', 'must be two upper-case letters');
    if (!/^[A-Z]{2}$/.test(row.address_to_country)) bad('address_to_country', 'must be two upper-case letters');
    if (!ZIP.test(row.address_to_zip)) bad('address_to_zip', 'must be 5 digits or ZIP+4');
    if (!(row.latitude >= -90 && row.latitude <= 90)) bad('latitude', 'must be a number from -90 to 90');
    if (!(row.longitude >= -180 && row.longitude <= 180)) bad('longitude', 'must be a number from -180 to 180');
    if (!Number.isInteger(row.shipping_days) || row.shipping_days < 0 || row.shipping_days > 30) bad('shipping_days', 'must be a whole number of days, 0 to 30');
    if (!row.licensed_states.length || !row.licensed_states.every((s) => STATE.test(s))) bad('licensed_states', 'must list at least one two-letter state');
    row.networks.forEach((n, j) => {
      if (!/^[0-9]{6}$/.test(n.bin)) bad(`networks[${j}].bin`, 'must be 6 digits');
    });
    rows.push(row);
  });
  // An empty table would be seeded with the shipped sample again on next use.
  if (!rows.length) problems.push({ where: fileName, message: 'holds no locations' });
  return problems.length ? { problems } : { rows };
}

/** Reads inventory: CSV `location_id,ndc,medication_name,quantity_on_hand` (or a JSON array of such objects). */
export function readInventory(body: string, fileName: string, locationIds: ReadonlySet<string>): Reading<PharmacyInventoryTable> {
  const read = records(body, fileName, 'inventory');
  if (!('list' in read)) return { problems: [read] };
  const problems: DocumentProblem[] = [];
  const rows: PharmacyInventoryTable[] = [];
  const seen = new Set<string>();
  read.list.forEach((r, i) => {
    const where = read.where(i);
    const quantity = text(r.quantity_on_hand) === '' ? null : number(r.quantity_on_hand);
    const row = { location_id: text(r.location_id).toLowerCase(), ndc: text(r.ndc).replace(/-/g, ''), medication_name: text(r.medication_name), quantity_on_hand: quantity };
    if (!locationIds.has(row.location_id)) problems.push({ where: `${where}.location_id`, message: 'is not a known pharmacy location' });
    if (!/^[0-9]{11}$/.test(row.ndc)) problems.push({ where: `${where}.ndc`, message: 'must be 11 digits' });
    if (!row.medication_name) problems.push({ where: `${where}.medication_name`, message: 'is required' });
    if (quantity !== null && !(Number.isInteger(quantity) && quantity >= 0)) problems.push({ where: `${where}.quantity_on_hand`, message: 'must be a whole number, 0 or more, or empty' });
    const key = `${row.location_id}/${row.ndc}`;
    if (seen.has(key)) problems.push({ where, message: 'repeats a location and NDC' });
    seen.add(key);
    rows.push(row);
  });
  return problems.length ? { problems } : { rows };
}

/** Reads ZIP code centroids: CSV `zip,city,state,latitude,longitude` (or a JSON array of such objects). */
export function readZipCentroids(body: string, fileName: string): Reading<ZipCentroidsTable> {
  const read = records(body, fileName, 'zips');
  if (!('list' in read)) return { problems: [read] };
  const problems: DocumentProblem[] = [];
  const rows: ZipCentroidsTable[] = [];
  const seen = new Set<string>();
  read.list.forEach((r, i) => {
    const where = read.where(i);
    const row = { zip: text(r.zip), city: text(r.city), state: text(r.state), latitude: number(r.latitude), longitude: number(r.longitude) };
    if (!/^[0-9]{5}$/.test(row.zip)) problems.push({ where: `${where}.zip`, message: 'must be 5 digits' });
    else if (seen.has(row.zip)) problems.push({ where: `${where}.zip`, message: 'is repeated' });
    seen.add(row.zip);
    if (!STATE.test(row.state)) problems.push({ where: `${where}.state`, message: 'must be two upper-case letters' });
    if (!(row.latitude >= -90 && row.latitude <= 90)) problems.push({ where: `${where}.latitude`, message: 'must be a number from -90 to 90' });
    if (!(row.longitude >= -180 && row.longitude <= 180)) problems.push({ where: `${where}.longitude`, message: 'must be a number from -180 to 180' });
    rows.push(row);
  });
  if (!rows.length) problems.push({ where: fileName, message: 'holds no ZIP codes' });
  return problems.length ? { problems } : { rows };
}
