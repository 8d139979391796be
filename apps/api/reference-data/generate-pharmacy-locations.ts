/**
 * Generates the shipped sample of pharmacy reference data, deterministically (a seeded
 * generator: running it again writes the same files):
 *
 *   pharmacy-locations.json   pharmacy locations: ids, NPIs, NCPDP ids, addresses with
 *                             coordinates, licensed states, plan networks, specialty dispensing
 *   pharmacy-inventory.csv    units on hand by location and NDC
 *   zip-centroids.csv         the centre of every ZIP code the sample uses
 *
 * The pharmacies are fictional. City centres are real; each ZIP code of a city (from the
 * city's real three-digit prefix) is given a centroid within four miles of the city's centre,
 * and each location lies within about a mile of its ZIP code's centroid.
 *
 *   npx tsx apps/api/reference-data/generate-pharmacy-locations.ts
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { luhnCheckDigit } from '../src/check-digits.js';

const here = dirname(fileURLToPath(import.meta.url));

// Mulberry32: a small seeded generator.
let seed = 20261125;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const digits = (n: number) => Array.from({ length: n }, () => int(0, 9)).join('');
const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

function uuidV4(): string {
  const hex = Array.from({ length: 32 }, () => int(0, 15).toString(16));
  hex[12] = '4';
  hex[16] = (8 + int(0, 3)).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/** An NPI: 1 or 2, eight digits, and Luhn's check digit over 80840 and the first nine. */
function npi(): string {
  const first9 = `${int(1, 2)}${digits(8)}`;
  return `${first9}${luhnCheckDigit(`80840${first9}`)}`;
}

interface City {
  name: string;
  state: string;
  lat: number;
  lon: number;
  prefix: string;
  zips: number;
  areaCode: string;
}

const CITIES: City[] = [
  { name: 'San Francisco', state: 'CA', lat: 37.7749, lon: -122.4194, prefix: '941', zips: 22, areaCode: '415' },
  { name: 'Oakland', state: 'CA', lat: 37.8044, lon: -122.2712, prefix: '946', zips: 12, areaCode: '510' },
  { name: 'Los Angeles', state: 'CA', lat: 34.0522, lon: -118.2437, prefix: '900', zips: 30, areaCode: '213' },
  { name: 'San Diego', state: 'CA', lat: 32.7157, lon: -117.1611, prefix: '921', zips: 16, areaCode: '619' },
  { name: 'Sacramento', state: 'CA', lat: 38.5816, lon: -121.4944, prefix: '958', zips: 12, areaCode: '916' },
  { name: 'New York', state: 'NY', lat: 40.7128, lon: -74.006, prefix: '100', zips: 28, areaCode: '212' },
  { name: 'Brooklyn', state: 'NY', lat: 40.6782, lon: -73.9442, prefix: '112', zips: 18, areaCode: '718' },
  { name: 'Buffalo', state: 'NY', lat: 42.8864, lon: -78.8784, prefix: '142', zips: 10, areaCode: '716' },
  { name: 'Albany', state: 'NY', lat: 42.6526, lon: -73.7562, prefix: '122', zips: 8, areaCode: '518' },
  { name: 'Houston', state: 'TX', lat: 29.7604, lon: -95.3698, prefix: '770', zips: 24, areaCode: '713' },
  { name: 'Dallas', state: 'TX', lat: 32.7767, lon: -96.797, prefix: '752', zips: 20, areaCode: '214' },
  { name: 'Austin', state: 'TX', lat: 30.2672, lon: -97.7431, prefix: '787', zips: 16, areaCode: '512' },
  { name: 'San Antonio', state: 'TX', lat: 29.4241, lon: -98.4936, prefix: '782', zips: 14, areaCode: '210' },
  { name: 'Miami', state: 'FL', lat: 25.7617, lon: -80.1918, prefix: '331', zips: 18, areaCode: '305' },
  { name: 'Orlando', state: 'FL', lat: 28.5383, lon: -81.3792, prefix: '328', zips: 12, areaCode: '407' },
  { name: 'Tampa', state: 'FL', lat: 27.9506, lon: -82.4572, prefix: '336', zips: 12, areaCode: '813' },
  { name: 'Jacksonville', state: 'FL', lat: 30.3322, lon: -81.6557, prefix: '322', zips: 10, areaCode: '904' },
  { name: 'Chicago', state: 'IL', lat: 41.8781, lon: -87.6298, prefix: '606', zips: 26, areaCode: '312' },
  { name: 'Springfield', state: 'IL', lat: 39.7817, lon: -89.6501, prefix: '627', zips: 6, areaCode: '217' },
  { name: 'Seattle', state: 'WA', lat: 47.6062, lon: -122.3321, prefix: '981', zips: 18, areaCode: '206' },
  { name: 'Tacoma', state: 'WA', lat: 47.2529, lon: -122.4443, prefix: '984', zips: 8, areaCode: '253' },
  { name: 'Spokane', state: 'WA', lat: 47.6588, lon: -117.426, prefix: '992', zips: 8, areaCode: '509' },
];
const STATES = [...new Set(CITIES.map((c) => c.state))].sort();

const BRANDS = ['Harbor Pharmacy', 'Main Street Drug', 'Cornerstone Pharmacy', 'Bluebird Apothecary', 'Civic Rx', 'Northgate Pharmacy', 'Evergreen Drug', 'Lakeside Pharmacy', 'Summit Health Pharmacy', 'Parkview Rx'];
const SPECIALTY_BRANDS = ['Meridian Specialty Pharmacy', 'Keystone Specialty Rx', 'Beacon Specialty Pharmacy'];
const STREETS = ['Main St', 'Market St', 'Oak Ave', 'Maple Ave', 'Broadway', 'Washington Blvd', 'Lincoln Ave', 'Park Ave', '2nd St', '5th Ave', 'Elm St', 'Cedar Rd', 'Pine St', 'Sunset Blvd', 'Lake Shore Dr', 'Harbor Way', 'Mission St', 'Central Ave', 'Highland Ave', 'River Rd'];

/** Prescription plans: BIN, PCN and group as a card shows them (fictional groups). */
const PLANS = [
  { bin: '610014', pcn: 'MEDDPRIME', group: null },
  { bin: '004336', pcn: 'ADV', group: 'RX1234' },
  { bin: '004336', pcn: 'ADV', group: null },
  { bin: '610097', pcn: '9999', group: 'OPTUMRX' },
  { bin: '003858', pcn: 'A4', group: null },
  { bin: '015581', pcn: null, group: 'HUMRX01' },
  { bin: '610502', pcn: 'MEDDAET', group: 'AETRX' },
  { bin: '017010', pcn: '0517CIG', group: null },
];

/** Products stocked: NDC (11 digits), name, therapeutic category. */
const PRODUCTS = [
  { ndc: '00071015523', name: 'Lipitor 10 mg tablet', category: 'cardiovascular' },
  { ndc: '00093715698', name: 'Atorvastatin 20 mg tablet', category: 'cardiovascular' },
  { ndc: '00378395105', name: 'Lisinopril 10 mg tablet', category: 'cardiovascular' },
  { ndc: '00093105801', name: 'Metformin 500 mg tablet', category: 'diabetes' },
  { ndc: '00002143380', name: 'Trulicity 1.5 mg/0.5 mL pen', category: 'diabetes' },
  { ndc: '00169413212', name: 'Ozempic 1 mg pen', category: 'diabetes' },
  { ndc: '00093310905', name: 'Amoxicillin 500 mg capsule', category: 'anti-infective' },
  { ndc: '00781506392', name: 'Sertraline 50 mg tablet', category: 'mental-health' },
  { ndc: '00074433902', name: 'Humira 40 mg/0.4 mL pen', category: 'immunology' },
  { ndc: '57894006403', name: 'Stelara 45 mg/0.5 mL syringe', category: 'immunology' },
  { ndc: '61958180101', name: 'Biktarvy tablet', category: 'hiv' },
  { ndc: '00085136702', name: 'Zepatier tablet', category: 'hepatitis' },
  { ndc: '00078095961', name: 'Gilenya 0.5 mg capsule', category: 'multiple-sclerosis' },
  { ndc: '00310028030', name: 'Tagrisso 80 mg tablet', category: 'oncology' },
];
const SPECIALTY_CATEGORIES = ['immunology', 'hiv', 'hepatitis', 'multiple-sclerosis', 'oncology'];

/** A point `miles` at most from (lat, lon), in a random direction. */
function near(lat: number, lon: number, miles: number): [number, number] {
  const r = miles * Math.sqrt(random());
  const angle = random() * 2 * Math.PI;
  const dLat = (r * Math.cos(angle)) / 69.0;
  const dLon = (r * Math.sin(angle)) / (69.0 * Math.cos((lat * Math.PI) / 180));
  return [round(lat + dLat, 6), round(lon + dLon, 6)];
}

interface Zip {
  zip: string;
  city: string;
  state: string;
  latitude: number;
  longitude: number;
  areaCode: string;
}

const zips: Zip[] = [];
for (const city of CITIES) {
  for (let i = 1; i <= city.zips; i++) {
    const [latitude, longitude] = near(city.lat, city.lon, 4);
    zips.push({ zip: `${city.prefix}${String(i * 3).padStart(2, '0')}`, city: city.name, state: city.state, latitude, longitude, areaCode: city.areaCode });
  }
}

const usedNpis = new Set<string>();
const usedNcpdp = new Set<string>();
const unique = (make: () => string, used: Set<string>) => {
  for (;;) {
    const value = make();
    if (!used.has(value)) return used.add(value), value;
  }
};

const locations: unknown[] = [];
const inventory: string[] = ['location_id,ndc,medication_name,quantity_on_hand'];
zips.forEach((zip, index) => {
  // About 300 locations: most ZIP codes have one, some two, some none.
  const count = index % 7 === 3 ? 0 : index % 5 === 0 ? 2 : 1;
  for (let n = 0; n < count; n++) {
    const specialty = random() < 0.09;
    const brand = specialty ? pick(SPECIALTY_BRANDS) : pick(BRANDS);
    const [latitude, longitude] = near(zip.latitude, zip.longitude, 1);
    const licensed = new Set([zip.state]);
    const extra = specialty ? int(2, STATES.length - 1) : pick([0, 0, 0, 1, 1, 2]);
    while (licensed.size < 1 + extra) licensed.add(pick(STATES));
    const networks = PLANS.filter(() => random() < 0.35).map((p) => ({ bin: p.bin, pcn: p.pcn, group: p.group }));
    const id = uuidV4();
    const location = {
      id,
      pharmacy: `${brand} - ${zip.city}${n ? ' ' + (n + 1) : ''}`,
      npi: unique(npi, usedNpis),
      ncpdpid: unique(() => `${int(0, 5)}${digits(6)}`, usedNcpdp),
      address_to_street1: `${int(10, 9899)} ${pick(STREETS)}`,
      address_to_street2: random() < 0.2 ? `Suite ${int(100, 450)}` : null,
      address_to_city: zip.city,
      address_to_state: zip.state,
      address_to_zip: zip.zip,
      address_to_country: 'US',
      address_to_phone: `+1${zip.areaCode}${int(2, 9)}${digits(6)}`,
      address_to_fax: random() < 0.6 ? `+1${zip.areaCode}${int(2, 9)}${digits(6)}` : null,
      latitude,
      longitude,
      same_day: !specialty && random() < 0.45,
      shipping_days: specialty ? int(1, 2) : int(1, 5),
      licensed_states: [...licensed].sort(),
      networks,
      specialty: specialty
        ? { categories: SPECIALTY_CATEGORIES.filter(() => random() < 0.5).concat(pick(SPECIALTY_CATEGORIES)).filter((c, i, all) => all.indexOf(c) === i).sort() }
        : null,
    };
    locations.push(location);
    for (const product of PRODUCTS) {
      const isSpecialty = SPECIALTY_CATEGORIES.includes(product.category);
      const stocks = isSpecialty ? specialty && location.specialty!.categories.includes(product.category) : random() < 0.7;
      if (!stocks) continue;
      inventory.push(`${id},${product.ndc},"${product.name}",${random() < 0.15 ? 0 : int(1, 400)}`);
    }
  }
});

writeFileSync(join(here, 'pharmacy-locations.json'), JSON.stringify({ products: PRODUCTS, locations }, null, 1) + '\n');
writeFileSync(join(here, 'pharmacy-inventory.csv'), inventory.join('\n') + '\n');
writeFileSync(
  join(here, 'zip-centroids.csv'),
  ['zip,city,state,latitude,longitude', ...zips.map((z) => `${z.zip},${z.city},${z.state},${z.latitude},${z.longitude}`)].join('\n') + '\n',
);
console.log(`${locations.length} locations, ${inventory.length - 1} inventory rows, ${zips.length} ZIP codes`);
