import type { Environment } from '../auth/principal.js';

/**
 * The diagnostics catalogue of one environment: the tests a tenant can order, the panels
 * each measures and the results (analytes) of each panel, and the kits that collect their
 * samples. One per environment of the deployment, imported by the operator (`pnpm admin
 * diagnostics-catalogue import`); the sandbox starts with the shipped sample
 * (`apps/api/reference-data/diagnostics-catalogue.json`).
 */
export type SampleType = 'blood' | 'saliva' | 'urine' | 'stool' | 'swab';

/** One measured result of a panel, as the lab reports it. */
export interface CatalogueAnalyte {
  /** Its code (a LOINC code where the analyte has one). */
  code: string;
  /** The code's system: `LOINC`, or null for a lab's own code. */
  code_system: string | null;
  name: string;
  /** `quantitative`: a number in `unit`, normal within `reference_low`..`reference_high`; `qualitative`: a word, normal when `normal_value`. */
  kind: 'quantitative' | 'qualitative';
  /** Unit of a quantitative value (`mg/dL`); null for qualitative ones. */
  unit: string | null;
  /** Bounds of the normal range of a quantitative value (either may be null: `<200` has no low bound). */
  reference_low: number | null;
  reference_high: number | null;
  /** The normal and the abnormal answer of a qualitative result (`NEGATIVE`, `POSITIVE`); null for quantitative ones. */
  normal_value: string | null;
  abnormal_value: string | null;
}

export interface CataloguePanel {
  /** Its code, as orders' `panels` and the listing's `panels` filter name it (`^[A-Za-z0-9_.-]{1,64}$`). */
  code: string;
  name: string;
  description: string | null;
  analytes: CatalogueAnalyte[];
}

export interface CatalogueTest {
  /** A version-4 UUID. */
  id: string;
  name: string;
  description: string | null;
  sample_type: SampleType;
  /** Whether an order of the test must name its approving physician. */
  requires_physician_approval: boolean;
  /** The kits that collect its sample (at least one; the first is the default). */
  kit_ids: string[];
  panels: CataloguePanel[];
}

export interface CatalogueKit {
  /** A version-4 UUID. */
  id: string;
  /** The stock-keeping unit printed on the kit. */
  sku: string;
  name: string;
  description: string | null;
  sample_type: SampleType;
}

export interface DiagnosticCatalogue {
  tests: CatalogueTest[];
  kits: CatalogueKit[];
}

/** Where an environment's catalogue came from, when. */
export interface CatalogueOrigin {
  environment: Environment;
  /** The file it was imported from (its base name), or `shipped sample`. */
  source: string;
  imported_at: string | null;
}
