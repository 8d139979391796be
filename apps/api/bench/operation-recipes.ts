/**
 * How `bench/operations.ts` calls each operation: the spec's example request (spec-requests.ts)
 * with the fixtures' tokens, and what an operation needs beyond it (a field that must differ per
 * request, a fresh fixture per request for one that uses its fixture up). An operation missing
 * here still gets a row, marked "no request".
 */
import { randomUUID } from 'node:crypto';
import { BENCH_SHIPPING } from './bench-service.js';
import type { Fixtures } from './operation-fixtures.js';
import { buildRequest, type BuiltRequest, type SpecOperation } from './spec-requests.js';

type BuildOptions = NonNullable<Parameters<typeof buildRequest>[2]>;

export interface Recipe {
  /** How the spec example is adapted (one request, repeated). */
  options?: BuildOptions;
  /** Headers instead of the operation's security scheme's. */
  headers?: Record<string, string>;
  /** A request of its own for the n-th call (a field that must differ per request). */
  vary?: (n: number) => BuiltRequest;
  /** A body sent as is (not JSON). */
  rawBody?: string | Buffer;
  /** Fresh fixtures, one request each (`build`), for an operation that uses its fixture up. */
  pool?: () => Promise<string[]>;
  build: (value: string) => BuiltRequest;
  /** Runs after every other operation (it changes or destroys what others read), and why. */
  last?: boolean;
  why?: string;
  note?: string;
  /** Why this operation cannot succeed in the bench (then only errors are not a failure). */
  expectError?: string;
}

const unused = (): BuiltRequest => {
  throw new Error('no pool');
};

export function recipesFor(f: Fixtures, spec: Map<string, SpecOperation>, poolSize: number): Record<string, Recipe> {
  const v = f.values;
  const op = (id: string) => spec.get(id)!;
  const fromSpec = (id: string, options: BuildOptions = {}, extra: Partial<Recipe> = {}): Recipe => ({ options, build: unused, ...extra });
  /** A request of the spec example with `patch(n)` merged into its body, per request. */
  const varying = (id: string, patch: (n: number) => Record<string, any>, options: BuildOptions = {}, extra: Partial<Recipe> = {}): Recipe => ({
    vary: (n) => buildRequest(op(id), f.tokens, { ...options, bodyPatch: { ...options.bodyPatch, ...patch(n) } }),
    build: unused,
    ...extra,
  });
  const pooled = (id: string, pool: () => Promise<string[]>, build: (value: string) => BuildOptions, why: string, extra: Partial<Recipe> = {}): Recipe => ({
    pool,
    build: (value) => buildRequest(op(id), f.tokens, build(value)),
    last: true,
    why,
    ...extra,
  });
  const times = async <T>(n: number, make: () => Promise<T>): Promise<T[]> => {
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(await make());
    return out;
  };
  const subscribed = async (n: number) => {
    const tokens = await f.prescriptions(n);
    for (const token of tokens) {
      await f.call('POST', `/v1/auto-refill/${token}`, {
        patient_payment_type: 'cash',
        interval_days: 30,
        ...BENCH_SHIPPING,
      });
    }
    return tokens;
  };
  const cashFill = (rx: string) => ({
    patient_token: f.patient,
    patient_payment_type: 'cash',
    medications: [{ prescription_token: rx }],
    ...BENCH_SHIPPING,
    patient_survey: {},
  });
  const address = { name: 'Bench Patient', street1: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94107' };

  return {
    // Patients
    createPatient: varying('createPatient', (n) => ({ first_name: `Bench${n}`, last_name: 'Patient', ssn: undefined, id_image: undefined }), {}, { note: 'a new patient per request' }),
    findPatient: fromSpec('findPatient', { query: { first_name: 'Bench', last_name: 'Patient', gender: 'female', dob: '19800131' } }),
    getPatient: fromSpec('getPatient'),
    updatePatient: fromSpec('updatePatient'),
    listPatientPrescriptions: fromSpec('listPatientPrescriptions'),
    getOpenApiDocument: fromSpec('getOpenApiDocument'),
    getPrescription: fromSpec('getPrescription'),
    receiveSandboxElectronicPrescription: fromSpec('receiveSandboxElectronicPrescription'),
    getPrescriber: fromSpec('getPrescriber', { byName: { prescriber_token: v.prescriber ?? 'none' } }, v.prescriber ? {} : { expectError: 'no prescriber token found on the fixtures' }),
    getInsurance: fromSpec('getInsurance', { byName: { insurance_token: v.insurance ?? 'none' } }, v.insurance ? {} : { expectError: 'no insurance record: the bench makes cash fills' }),
    getCopayRequest: fromSpec('getCopayRequest', {}, { expectError: 'copay requests come from the pharmacy working an insurance fill; the sandbox pharmacy is held still' }),
    // Transfers
    createTransferRequest: fromSpec('createTransferRequest', { exampleName: 'fromPharmacy' }),
    listTransferRequests: fromSpec('listTransferRequests'),
    getTransferRequest: fromSpec('getTransferRequest'),
    createDirectTransfer: fromSpec('createDirectTransfer'),
    getDirectTransfer: fromSpec('getDirectTransfer'),
    getExternalTransfer: fromSpec('getExternalTransfer', {}, { expectError: 'external transfers come from the pharmacy; no operation makes one' }),
    // Fill requests
    createFillRequest: fromSpec('createFillRequest', { exampleName: 'cashWithCheckIn' }),
    getFillRequest: fromSpec('getFillRequest'),
    listFillRequests: fromSpec('listFillRequests'),
    getOrder: fromSpec('getOrder', { byName: { token: v.order ?? 'none' } }, v.order ? {} : { expectError: 'an order is made when the sandbox pharmacy works a fill, held still in the bench' }),
    getScheduledFillRequest: fromSpec('getScheduledFillRequest', { query: { id: v.scheduled } }),
    scheduleFillRequest: fromSpec('scheduleFillRequest', { bodyPatch: { submit_on: new Date(Date.now() + 45 * 86_400_000).toISOString() } }, { note: 'reschedules the same held fill' }),
    rescheduleFillRequest: fromSpec('rescheduleFillRequest', { bodyPatch: { submit_on: new Date(Date.now() + 50 * 86_400_000).toISOString() } }),
    listScheduledActions: fromSpec('listScheduledActions'),
    cancelScheduledFillRequest: pooled(
      'cancelScheduledFillRequest',
      async () => (await times(poolSize, f.pools.newHeldFill)).map((h) => h.scheduled!).filter(Boolean),
      (id) => ({ byName: { id } }),
      'a canceled schedule cannot be canceled again',
    ),
    cancelFillRequest: pooled(
      'cancelFillRequest',
      async () => {
        const rxs = await f.prescriptions(poolSize);
        const out: string[] = [];
        for (const rx of rxs) out.push((await f.call('POST', '/v1/fill_request', cashFill(rx))).json.request_id);
        return out;
      },
      (request_id) => ({ body: { request_id } }),
      'a canceled fill request cannot be canceled again',
    ),
    // Auto-refill
    listAutoRefills: fromSpec('listAutoRefills'),
    listPatientAutoRefills: fromSpec('listPatientAutoRefills'),
    getAutoRefill: fromSpec('getAutoRefill', { byName: { prescription_token: v.rxAuto! } }),
    createAutoRefill: pooled(
      'createAutoRefill',
      () => f.prescriptions(poolSize),
      (prescription_token) => ({ byName: { prescription_token }, body: { patient_payment_type: 'cash', interval_days: 30, shipping_method: 'usps_priority', ...BENCH_SHIPPING } }),
      'a prescription subscribes once',
    ),
    skipAutoRefill: pooled('skipAutoRefill', () => subscribed(poolSize), (prescription_token) => ({ byName: { prescription_token } }), 'skips the next refill of a subscription'),
    earlyAutoRefill: pooled('earlyAutoRefill', () => subscribed(poolSize), (prescription_token) => ({ byName: { prescription_token } }), 'submits the next refill now, once'),
    cancelAutoRefill: pooled('cancelAutoRefill', () => subscribed(poolSize), (prescription_token) => ({ byName: { prescription_token } }), 'a canceled subscription is gone'),
    // Coverage, locations
    getPharmacyCoverage: fromSpec('getPharmacyCoverage', { query: { ship_to_state: 'TX', bin: '610014' } }),
    getAvailability: fromSpec('getAvailability'),
    matchExternalLocation: fromSpec('matchExternalLocation', { query: { street1: '2 Mission St', city: 'San Francisco', state: 'CA', zip: '94103' } }),
    matchExternalLocations: fromSpec('matchExternalLocations'),
    listExternalLocations: fromSpec('listExternalLocations', { query: { zip: '94103' } }),
    getExternalLocation: fromSpec('getExternalLocation'),
    listNearbySameDayPickupLocations: fromSpec('listNearbySameDayPickupLocations', { query: { zip: '94103', radius_miles: '25' } }),
    listSpecialtyPharmacies: fromSpec(
      'listSpecialtyPharmacies',
      { query: { prescription_token: v.rx, insurance_token: v.insurance ?? 'none' } },
      v.insurance ? {} : { expectError: 'needs an insurance record: the bench makes cash fills' },
    ),
    // Same-day delivery
    createSameDayDelivery: fromSpec('createSameDayDelivery', { body: f.pools.sddBody(v.rxSdd!) as never }),
    listSameDayDeliveries: fromSpec('listSameDayDeliveries'),
    getSameDayDelivery: fromSpec('getSameDayDelivery'),
    // Media
    createMedia: varying('createMedia', () => ({ fileName: randomUUID() })),
    getMedia: fromSpec('getMedia'),
    getMediaReadAddress: fromSpec('getMediaReadAddress'),
    getMediaWriteAddress: fromSpec('getMediaWriteAddress', { byName: { id: v.mediaV1Fresh! } }, { note: 'a record not uploaded yet' }),
    createMediaUpload: fromSpec('createMediaUpload'),
    getMediaSignedUrl: fromSpec('getMediaSignedUrl', { byName: { id: v.mediaV2! } }),
    readMediaContent: { vary: () => ({ method: 'GET', path: v.mediaReadPath! }), build: unused, note: '4 KiB through its signed address' },
    uploadMediaContent: {
      pool: async () => {
        const paths: string[] = [];
        for (let i = 0; i < poolSize; i++) {
          const created = (await f.call('POST', '/v2/media', { name: `bench-${i}.png` })).json as { upload_url?: string };
          if (created.upload_url) {
            const url = new URL(created.upload_url);
            paths.push(`${url.pathname}${url.search}`);
          }
        }
        return paths;
      },
      build: (path) => ({ method: 'PUT', path, contentType: 'image/png' }),
      rawBody: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(4096, 7)]),
      last: true,
      why: 'a file is uploaded once',
      note: '4 KiB each',
    },
    // Webhooks
    getWebhookEndpoint: fromSpec('getWebhookEndpoint'),
    setWebhookEndpoint: fromSpec('setWebhookEndpoint', { body: { url: v.receiverUrl! } }),
    rotateWebhookEndpointSecret: fromSpec('rotateWebhookEndpointSecret'),
    testWebhookEndpoint: fromSpec('testWebhookEndpoint', {}, { note: 'delivers to a local receiver' }),
    enableWebhookEndpoint: fromSpec('enableWebhookEndpoint'),
    listWebhookEvents: fromSpec('listWebhookEvents'),
    listWebhookEventsByType: fromSpec('listWebhookEventsByType'),
    redeliverWebhookEvents: fromSpec('redeliverWebhookEvents', { body: { since: new Date(Date.now() - 3_600_000).toISOString() } }),
    // TODO: the event id the bench finds (listed or the test delivery's webhook_id) answers 404 here.
    redeliverWebhookEvent: fromSpec('redeliverWebhookEvent', {}, { expectError: 'no redeliverable event id found by the bench yet (404 Unable to find Webhook Event)' }),
    // Consults
    listConsults: fromSpec('listConsults'),
    listConsultQuestionnaires: fromSpec('listConsultQuestionnaires'),
    createConsult: { vary: () => buildRequest(op('createConsult'), f.tokens, { body: f.pools.consultBody(false) as never }), build: unused, note: 'without an appointment' },
    getConsult: fromSpec('getConsult'),
    listScheduleSlots: fromSpec('listScheduleSlots', { query: { start: v.scheduleFrom, end: v.scheduleTo, questionnaire: v.questionnaire, state: 'CA' } }, { note: '7 days, sample care team' }),
    simulateConsult: pooled('simulateConsult', () => times(poolSize, f.pools.newConsult), (consult_id) => ({ byName: { consult_id } }), 'completes the consult'),
    deleteConsult: pooled('deleteConsult', () => times(poolSize, f.pools.newConsult), (consult_id) => ({ byName: { consult_id } }), 'a deleted consult is gone'),
    // Diagnostics
    listDiagnosticKits: fromSpec('listDiagnosticKits'),
    listDiagnosticTests: fromSpec('listDiagnosticTests'),
    listDiagnosticOrders: fromSpec('listDiagnosticOrders'),
    createDiagnosticOrder: fromSpec('createDiagnosticOrder', { body: f.pools.labOrderBody as never }),
    getDiagnosticOrder: fromSpec('getDiagnosticOrder'),
    getDiagnosticOrderRejection: fromSpec('getDiagnosticOrderRejection', {}, { expectError: 'the order is not rejected (the sandbox lab is held still)' }),
    getDiagnosticOrderResults: fromSpec('getDiagnosticOrderResults', {}, { expectError: 'no results yet (the sandbox lab is held still)' }),
    getDiagnosticOrderResultsV2: fromSpec('getDiagnosticOrderResultsV2', {}, { expectError: 'no results yet (the sandbox lab is held still)' }),
    getDiagnosticOrderResultsUnprefixed: fromSpec('getDiagnosticOrderResultsUnprefixed', { byName: { orderId: v.labOrder! } }, { expectError: 'no results yet (the sandbox lab is held still)' }),
    validateKitSerial: fromSpec('validateKitSerial'),
    registerDiagnosticOrder: varying('registerDiagnosticOrder', (n) => ({ kit_serial: `KT-BENCH-${randomUUID().slice(0, 8)}-${n}` })),
    registerDiagnosticOrderUnprefixed: varying('registerDiagnosticOrderUnprefixed', (n) => ({ kit_serial: `KT-BENCH-${randomUUID().slice(0, 8)}-${n}` })),
    registerKitSerial: pooled(
      'registerKitSerial',
      () => times(poolSize, f.pools.newLabOrder),
      (order_id) => ({ byName: { order_id }, body: { kit_serial: `KT-BENCH-${randomUUID().slice(0, 8)}` } }),
      'a kit serial is registered once per order',
    ),
    // Accounts, tokens
    createAccount: varying('createAccount', () => ({ email: `bench-${randomUUID()}@example.com` }), {}, { headers: { 'x-tenant-id': v.tenantId!, 'x-environment': 'sandbox' } }),
    createAccountConsent: fromSpec('createAccountConsent'),
    deleteAccount: pooled('deleteAccount', () => times(poolSize, f.pools.newAccount), (accountId) => ({ byName: { accountId } }), 'a deleted account is gone'),
    createAccessToken: fromSpec('createAccessToken', { body: JSON.parse(f.credentials) }, { headers: {} }),
    getJsonWebKeySet: fromSpec('getJsonWebKeySet'),
  };
}
