import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { InvalidDocumentError } from '../db/environment-documents.js';
import type { PharmacyLocation, PharmacyLocationDirectory } from './pharmacy-location.js';
import type { ReferenceDataRepository } from './reference-data-repository.js';
import { readInventory, readLocations, readZipCentroids, type LocationRecord, type Reading } from './reference-files.js';
import { ReferenceSnapshot, type ReferenceLocation } from './reference-snapshot.js';

/** The shipped sample files, loaded into empty tables on first use. */
export interface ReferenceSampleFiles {
  locations: string;
  inventory: string;
  zips: string;
}

/** What the reference data holds. */
export interface ReferenceCounts {
  locations: number;
  same_day_locations: number;
  specialty_pharmacies: number;
  states: string[];
  inventory_items: number;
  zip_codes: number;
}

export const SHIPPED_REFERENCE_DATA: ReferenceSampleFiles = {
  locations: new URL('../../reference-data/pharmacy-locations.json', import.meta.url).pathname,
  inventory: new URL('../../reference-data/pharmacy-inventory.csv', import.meta.url).pathname,
  zips: new URL('../../reference-data/zip-centroids.csv', import.meta.url).pathname,
};

function rowsOrThrow<T>(noun: string, reading: Reading<T>): T[] {
  if (reading.problems) throw new InvalidDocumentError(noun, reading.problems);
  return reading.rows;
}

function tableRows(records: LocationRecord[]) {
  return {
    locations: records.map(({ licensed_states, networks, specialty_categories, same_day, ...location }) => ({
      ...location,
      same_day: (same_day ? 1 : 0) as 0 | 1,
      specialty_categories: specialty_categories?.join(',') ?? null,
    })),
    licenses: records.flatMap((r) => r.licensed_states.map((state) => ({ location_id: r.id, state }))),
    networks: records.flatMap((r) => r.networks.map((n) => ({ location_id: r.id, ...n }))),
  };
}

/**
 * The pharmacy reference data: locations, their licensed states and plan networks,
 * specialty dispensing, inventory by NDC and ZIP code centroids. The tables are loaded by
 * the operator (`pnpm admin reference-data import ...`); when the locations table is empty
 * on first use, the shipped sample (`reference-data/`) is loaded into it (and the ZIP
 * centroids likewise), so a fresh install and the tests have data.
 *
 * Each process keeps the data in memory (a few hundred locations): lookups never query the
 * database. An import through this instance is seen at once; one by another process (the
 * admin command) within `refreshMs`, refreshed in the background while the old copy answers.
 */
export class PharmacyLocations implements PharmacyLocationDirectory {
  private current?: { snapshot: ReferenceSnapshot; loadedAt: number };
  private loading?: Promise<ReferenceSnapshot>;

  constructor(
    private readonly repository: ReferenceDataRepository,
    private readonly sample: ReferenceSampleFiles = SHIPPED_REFERENCE_DATA,
    private readonly refreshMs = 30_000,
  ) {}

  /** The reference data now (loaded, or the sample seeded, on first use). */
  async snapshot(): Promise<ReferenceSnapshot> {
    const current = this.current;
    if (current) {
      if (Date.now() - current.loadedAt > this.refreshMs && !this.loading) void this.load().catch(() => undefined);
      return current.snapshot;
    }
    return this.load();
  }

  private load(): Promise<ReferenceSnapshot> {
    this.loading ??= (async () => {
      try {
        await this.seedWhenEmpty();
        const snapshot = new ReferenceSnapshot(await this.repository.readAll());
        this.current = { snapshot, loadedAt: Date.now() };
        return snapshot;
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  private async seedWhenEmpty(): Promise<void> {
    const counts = await this.repository.counts();
    try {
      if (counts.locations === 0) {
        const records = rowsOrThrow('pharmacy locations', readLocations(readFileSync(this.sample.locations, 'utf8'), this.sample.locations));
        const inventory = rowsOrThrow('inventory', readInventory(readFileSync(this.sample.inventory, 'utf8'), this.sample.inventory, new Set(records.map((r) => r.id))));
        const rows = tableRows(records);
        await this.repository.replaceLocations(rows.locations, rows.licenses, rows.networks, inventory);
      }
      if (counts.zips === 0) await this.repository.replaceZipCentroids(rowsOrThrow('ZIP centroids', readZipCentroids(readFileSync(this.sample.zips, 'utf8'), this.sample.zips)));
    } catch (error) {
      // Another process seeding at the same moment: its rows stand.
      const now = await this.repository.counts();
      if (now.locations === 0 || now.zips === 0) throw error;
    }
  }

  async findById(id: string): Promise<PharmacyLocation | undefined> {
    return strip((await this.snapshot()).byLocationId(id));
  }

  async findByNcpdpid(ncpdpid: string): Promise<PharmacyLocation | undefined> {
    return strip((await this.snapshot()).byNcpdp(ncpdpid));
  }

  /** Replaces the locations (a `.json` or `.csv` file); inventory of locations no longer listed goes with them. */
  async importLocations(text: string, fileName: string): Promise<ReferenceCounts> {
    const rows = tableRows(rowsOrThrow('pharmacy locations', readLocations(text, basename(fileName))));
    await this.repository.replaceLocations(rows.locations, rows.licenses, rows.networks);
    return this.counts(await this.load());
  }

  /** Replaces the inventory (`.csv` or `.json`); every row must name a loaded location. */
  async importInventory(text: string, fileName: string): Promise<ReferenceCounts> {
    const ids = new Set((await this.load()).locations.map((l) => l.id));
    await this.repository.replaceInventory(rowsOrThrow('inventory', readInventory(text, basename(fileName), ids)));
    return this.counts(await this.load());
  }

  /** Replaces the ZIP code centroids (`.csv` or `.json`). */
  async importZipCentroids(text: string, fileName: string): Promise<ReferenceCounts> {
    await this.repository.replaceZipCentroids(rowsOrThrow('ZIP centroids', readZipCentroids(text, basename(fileName))));
    return this.counts(await this.load());
  }

  async summary(): Promise<ReferenceCounts> {
    return this.counts(await this.load());
  }

  private counts(snapshot: ReferenceSnapshot): ReferenceCounts {
    const locations = snapshot.locations;
    return {
      locations: locations.length,
      same_day_locations: locations.filter((l) => l.same_day).length,
      specialty_pharmacies: locations.filter((l) => l.specialty_categories).length,
      states: [...new Set(locations.map((l) => l.address_to_state))].sort(),
      inventory_items: snapshot.inventorySize,
      zip_codes: snapshot.zipCount,
    };
  }
}

/** The directory's record: the location without the lookups' extras. */
function strip(location: ReferenceLocation | undefined): PharmacyLocation | undefined {
  if (!location) return undefined;
  const { shipping_days, licensed_states, networks, specialty_categories, ...record } = location;
  return record;
}
