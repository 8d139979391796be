import type { ValidationErrorItem } from '../errors.js';
import type { CatalogueKit, CataloguePanel, CatalogueTest, DiagnosticCatalogue } from './catalogue.js';

/** What an order asks of the catalogue (the order's fields of the same names). */
export interface CatalogueRequest {
  test_id: string;
  kit_id?: string | null;
  /** Panels of the test by code or by name, case-insensitively; all of them when left out. */
  panels?: readonly string[] | null;
}

/** The test, kit and panels an order stands for. */
export interface CatalogueSelection {
  test: CatalogueTest;
  kit: CatalogueKit;
  /** In the test's order, each once. */
  panels: CataloguePanel[];
}

export type CatalogueSelectionResult = { selection: CatalogueSelection; problems?: undefined } | { selection?: undefined; problems: ValidationErrorItem[] };

/**
 * A checked catalogue with its lookups. Ids are matched case-insensitively (the catalogue
 * holds them in lower case). The catalogue is frozen: it is shared by every caller until
 * the next import.
 */
export class CatalogueIndex {
  private readonly tests: ReadonlyMap<string, CatalogueTest>;
  private readonly kits: ReadonlyMap<string, CatalogueKit>;
  private readonly testsByKit = new Map<string, CatalogueTest[]>();

  constructor(readonly catalogue: DiagnosticCatalogue) {
    deepFreeze(catalogue);
    this.tests = new Map(catalogue.tests.map((test) => [test.id, test]));
    this.kits = new Map(catalogue.kits.map((kit) => [kit.id, kit]));
    for (const test of catalogue.tests) {
      for (const kitId of test.kit_ids) this.testsByKit.set(kitId, [...(this.testsByKit.get(kitId) ?? []), test]);
    }
  }

  test(id: string): CatalogueTest | undefined {
    return this.tests.get(id.toLowerCase());
  }

  kit(id: string): CatalogueKit | undefined {
    return this.kits.get(id.toLowerCase());
  }

  /** The kits that serve the test, its default first; none for an unknown test. */
  kitsOfTest(testId: string): CatalogueKit[] {
    return (this.test(testId)?.kit_ids ?? []).map((id) => this.kits.get(id)!);
  }

  /** The tests the kit serves, in the catalogue's order (a kit's `test_ids`). */
  testsOfKit(kitId: string): CatalogueTest[] {
    return [...(this.testsByKit.get(kitId.toLowerCase()) ?? [])];
  }

  /** The test's panel named by its code or its name, case-insensitively. */
  panelOf(test: CatalogueTest, name: string): CataloguePanel | undefined {
    const wanted = name.trim().toLowerCase();
    return test.panels.find((p) => p.code.toLowerCase() === wanted) ?? test.panels.find((p) => p.name.toLowerCase() === wanted);
  }

  /**
   * The test, kit and panels an order asks for, or its problems keyed by the order's
   * fields: an unknown `test_id`; a `kit_id` that does not serve the test (the test's
   * first kit when none is named); `panels` that are not the test's (all when none named).
   */
  select(request: CatalogueRequest): CatalogueSelectionResult {
    const test = this.test(request.test_id);
    if (!test) return { problems: [{ key: 'test_id', message: 'is not a test of the catalogue' }] };
    const problems: ValidationErrorItem[] = [];
    const kitId = request.kit_id ?? test.kit_ids[0]!;
    const kit = test.kit_ids.includes(kitId.toLowerCase()) ? this.kit(kitId) : undefined;
    if (!kit) problems.push({ key: 'kit_id', message: `is not a kit of the test (its kits: ${test.kit_ids.join(', ')})` });
    let panels = test.panels;
    if (request.panels) {
      const named = new Set<CataloguePanel>();
      request.panels.forEach((name, i) => {
        const panel = this.panelOf(test, name);
        if (panel) named.add(panel);
        else problems.push({ key: `panels.${i}`, message: `is not a panel of the test (its panels: ${test.panels.map((p) => p.code).join(', ')})` });
      });
      if (request.panels.length === 0) problems.push({ key: 'panels', message: 'must name at least one panel' });
      panels = test.panels.filter((p) => named.has(p));
    }
    return problems.length ? { problems } : { selection: { test, kit: kit!, panels: [...panels] } };
  }
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
}
