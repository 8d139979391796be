/**
 * The records `bench/operations.ts` calls every operation on: a customer (sandbox API key,
 * OAuth client and bearer token), a patient, prescriptions, a fill request, transfers, a
 * consult, a lab order, media, a same-day delivery, a webhook endpoint with a local receiver,
 * an auto-refill subscription, a scheduled fill, an account... made through the API (plain
 * fetch) where it can, and answered as `tokens`: the spec examples' tokens mapped to them.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openDatabase } from '../src/db/database.js';
import { randomToken } from '../src/tokens.js';
import { BENCH_SHIPPING } from './bench-service.js';

export interface Fixtures {
  api: string;
  customer: { customer_id: string; sandbox_api_key: string; sandbox_client_id: string; sandbox_client_secret: string; audience: string; [key: string]: unknown };
  apiKey: Record<string, string>;
  bearer: Record<string, string>;
  credentials: string;
  patient: string;
  /** A spec example's token (or id) → the fixture's. */
  tokens: Map<string, string>;
  values: Record<string, string | undefined>;
  headersFor(security: readonly Record<string, readonly string[]>[] | undefined): Record<string, string>;
  /** Prescriptions stored with fills to spare, `count` of them. */
  prescriptions(count: number, over?: Record<string, unknown>): Promise<string[]>;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any }>;
  receiver: Server;
  pools: {
    newHeldFill(): Promise<{ fill: string; scheduled: string | undefined }>;
    newConsult(): Promise<string>;
    newLabOrder(): Promise<string>;
    newAccount(): Promise<string>;
    consultBody(withSlot?: boolean): Record<string, unknown>;
    labOrderBody: Record<string, unknown>;
    sddBody(rxToken: string): Record<string, unknown>;
  };
}

/** The spec's direct-transfer example for `patient`. */
function directTransferBody(patient: string) {
  return {
    patient_token: patient,
    prescriber: { first_name: 'Alex', last_name: 'Smith', npi: '1234567893', address: { name: 'Dr. Alex Smith', company: 'Bayview Family Medicine', street1: '500 Howard St', city: 'San Francisco', state: 'CA', zip: '94105', phone: '4155550123' } },
    transfer_from: { name: 'Customer Pharmacy', id_number: '0512345', pharmacist: 'Pat Lee', address: { name: 'Customer Pharmacy', company: 'Customer Health Inc.', street1: '20 Mission St', city: 'San Francisco', state: 'CA', zip: '94103', email: 'pharmacy@customer.example.com' } },
    transfer_to: { name: 'Platform Pharmacy', id_number: '0598765', pharmacist: 'Morgan Reyes' },
    prescription: { medication_name: 'Atorvastatin 20 mg tablet', prescribed_ndc: '00071015523', days_supply: 30, quantity_written: '30', quantity_dispensed: '30', medication_sig: 'Take 1 tablet by mouth daily', refills_left: 4, refills_transferred: 4, number: 'RX-778812', direct_transfer_url: 'https://files.customer.example.com/rx/778812.pdf', can_substitute: true, written_date: '20251103', first_fill_date: '20251105', last_fill_date: '20251205' },
  };
}

const debug = process.env.BENCH_DEBUG === '1';

export async function makeFixtures(options: {
  api: string;
  env: Record<string, string>;
  dataDir: string;
  poolSize: number;
  apiRoot: string;
  startService: () => Promise<void>;
}): Promise<Fixtures> {
  const { api, env, apiRoot } = options;
  // Asynchronous, so the caller's other processes (the bare route's server) start meanwhile.
  const admin = async (...args: string[]) =>
    (await promisify(execFile)(process.execPath, [join(apiRoot, 'bin', 'admin.mjs'), ...args], { env: { ...process.env, ...env }, encoding: 'utf8' })).stdout;
  await admin('care-team', 'import', '--environment', 'sandbox', '--file', join(apiRoot, 'reference-data', 'care-team.json'));
  const customer = JSON.parse(await admin('create-customer', '--name', 'Bench operations')) as Fixtures['customer'];
  await admin('coverage', 'enable', '--customer', customer.customer_id);
  await options.startService();

  const apiKey = { authorization: `ApiKey ${customer.sandbox_api_key}` };
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = apiKey) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let json: any = text;
    try {
      json = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    if (debug) console.log(`[fixture] ${method} ${path} → ${res.status} ${text.slice(0, 400)}`);
    return { status: res.status, json };
  };
  const need = (what: string, res: { status: number; json: any }) => {
    if (res.status >= 300) console.warn(`fixture ${what}: ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
    return res.json;
  };

  const credentials = JSON.stringify({
    client_id: customer.sandbox_client_id,
    client_secret: customer.sandbox_client_secret,
    audience: customer.audience,
    grant_type: 'client_credentials',
  });
  const exchanged = need('token', await call('POST', '/oauth/token', JSON.parse(credentials), {}));
  const bearer = { authorization: `Bearer ${exchanged.access_token}` };
  const scoped = need(
    'scoped token',
    await call('POST', '/oauth/token', { ...JSON.parse(credentials), scope: 'accounts:consents:create accounts:delete' }, {}),
  );
  const accountsBearer = { authorization: `Bearer ${scoped.access_token ?? exchanged.access_token}` };

  const tenantId = String(customer.tenant_id ?? customer.customer_id);
  const headersFor: Fixtures['headersFor'] = (security): Record<string, string> => {
    const schemes = (security ?? []).flatMap((s) => Object.keys(s));
    if (schemes.includes('ApiKey')) return apiKey;
    if (schemes.includes('BearerJwt')) return bearer;
    if (schemes.includes('OAuth2ClientCredentials')) return accountsBearer;
    if (schemes.includes('TenantId')) return { 'x-tenant-id': tenantId };
    return {};
  };

  const prescriptions = async (count: number, over: Record<string, unknown> = {}): Promise<string[]> => {
    const database = openDatabase(env.DATABASE_URL!);
    const tokens = Array.from({ length: count }, () => randomToken());
    const now = new Date().toISOString();
    for (let i = 0; i < tokens.length; i += 500) {
      await database.db
        .insertInto('prescriptions')
        .values(
          tokens.slice(i, i + 500).map((token, j) => ({
            token,
            customer_id: customer.customer_id,
            environment: 'sandbox' as const,
            patient_token: patient,
            rx_number: String(8_000_000 + Math.floor(Math.random() * 1_000_000) + i + j),
            status: 'active',
            is_refill: 0 as const,
            medication_name: 'Atorvastatin 20 mg tablet',
            prescribed_quantity: 1,
            prescribed_ndc: '00071015523',
            number_of_refills_allowed: 10_000_000,
            refills_remaining: 10_000_000,
            quantity_remaining: 10_000_000,
            expiration_date_utc: '2099-01-01T00:00:00.000Z',
            created_at: now,
            ...over,
          })) as never,
        )
        .execute();
    }
    await database.close();
    return tokens;
  };

  // A local webhook receiver answering 200 to everything.
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  }).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  const patientRes = need('patient', await call('PUT', '/v1/patient', { first_name: 'Bench', last_name: 'Patient', dob: '19800131', gender: 'female', zip: '94107', state: 'CA' }));
  const patient = patientRes.patient_token as string;
  const [rx, rxAuto, rxSdd] = await prescriptions(3);
  const erx = need('sandbox e-prescription', await call('POST', '/v1/sandbox/electronic_prescriptions', { patient_token: patient, medication_name: 'Lisinopril 10 mg tablet', refills: 3 }));

  const address = BENCH_SHIPPING;
  const fill = need('fill request', await call('POST', '/v1/fill_request', { patient_token: patient, patient_payment_type: 'cash', medications: [{ prescription_token: rx }], ...address, patient_survey: {} }));
  const fillToken = (fill.url_token ?? fill.request_id ?? fill.token) as string;
  const fillRead = need('fill request read', await call('GET', `/v1/fill_request/${fillToken}`));
  const transfer = need(
    'transfer request',
    await call('POST', '/v1/transfer_request', { patient_token: patient, pharmacy_name: 'Corner Drug Store', pharmacy_phone: '4155550142', medications: ['Atorvastatin 20 mg tablet'] }),
  );
  const transferToken = (transfer.details?.transfer_token ?? transfer.request_id) as string | undefined;
  const direct = need('direct transfer', await call('POST', '/v1/direct_transfer', directTransferBody(patient)));

  // Consults: the questionnaire of the sample care team, a free slot of tomorrow onwards.
  const questionnaires = need('questionnaires', await call('GET', '/consults/v0/questionnaires'));
  const questionnaireList = (Array.isArray(questionnaires) ? questionnaires : (questionnaires.questionnaires ?? questionnaires.data ?? [])) as { id?: string; _id?: string }[];
  const questionnaire = questionnaireList[0]?.id ?? questionnaireList[0]?._id;
  const day = 86_400_000;
  const scheduleFrom = new Date(Date.now() + day).toISOString();
  const scheduleTo = new Date(Date.now() + 8 * day).toISOString();
  const schedule = need('schedule', await call('GET', `/v0/schedule?start=${scheduleFrom}&end=${scheduleTo}&questionnaire=${questionnaire}&state=CA`));
  const slots = (schedule.availabilities ?? []) as { start: string; duration: number; provider_id: string }[];
  let slotIndex = 0;
  const consultBody = (withSlot = true) => {
    const slot = slots[slotIndex++ % Math.max(slots.length, 1)];
    return {
      patient: { patient_token: patient, last_name: 'Patient', gender: 'female', dob: '1980-01-31', home_zip: '94107', preferred_contact: 'email' },
      shipping_address: { name: 'Bench Patient', street1: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94107', email: 'bench@example.com' },
      questionaire: questionnaire,
      ...(withSlot && slot ? { appointment: { appt_date: slot.start, duration: slot.duration * 60, provider_id: slot.provider_id } } : {}),
    };
  };
  const newConsult = async () => {
    const res = await call('POST', '/consults/v0/consult', consultBody(false));
    return (res.json.consult ?? res.json.consult_id ?? res.json.id) as string;
  };
  const consult = await newConsult();

  // Lab orders: a test of the sample catalogue that needs no physician, and a kit.
  const tests = need('tests', await call('GET', '/diagnostics/v0/tests', undefined, bearer)) as { id: string; requires_physician_approval?: boolean }[];
  const labTest = (Array.isArray(tests) ? tests : []).find((t) => !t.requires_physician_approval) ?? (Array.isArray(tests) ? tests[0] : undefined);
  const kits = need('kits', await call('GET', '/diagnostics/v0/kits', undefined, bearer));
  const kitList = (Array.isArray(kits) ? kits : (kits.kits ?? kits.data ?? [])) as { id: string }[];
  const labOrderBody = { patient_token: patient, test_id: labTest?.id, address: { name: 'Bench Patient', street1: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94107' } };
  const newLabOrder = async () => {
    const res = await call('POST', '/diagnostics/v0/orders', labOrderBody, bearer);
    return (res.json.id ?? res.json.order_id) as string;
  };
  const labOrder = await newLabOrder();

  const image = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(4096, 7)]);
  // Media: a v1 record, and a v2 file uploaded through its signed address.
  const mediaV1 = need('media v1', await call('POST', '/v1/media', { fileName: randomUUID(), title: 'Insurance card, front' }));
  const mediaV2 = need('media v2', await call('POST', '/v2/media', { name: 'bench.png' }));
  // The v1 record's file, uploaded through its write address (so its read address is given).
  const v1Write = need('media v1 write address', await call('GET', `/v1/media/${mediaV1.id}/signed-url/write`));
  const v1WriteUrl = (typeof v1Write === 'string' ? v1Write : (v1Write.url ?? v1Write.signed_url)) as string | undefined;
  if (v1WriteUrl) {
    const url = new URL(v1WriteUrl);
    const put = await fetch(`${api}${url.pathname}${url.search}`, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: image });
    if (put.status >= 300) console.warn(`fixture media v1 upload: ${put.status} ${await put.text()}`);
  } else console.warn(`fixture media v1 write address: ${JSON.stringify(v1Write).slice(0, 200)}`);
  let writePath: string | undefined;
  let readPath: string | undefined;
  if (mediaV2.upload_url) {
    const upload = new URL(mediaV2.upload_url as string);
    writePath = `${upload.pathname}${upload.search}`;
    const put = await fetch(`${api}${writePath}`, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: image });
    if (put.status >= 300) console.warn(`fixture media upload: ${put.status} ${await put.text()}`);
    const read = need('media v2 read', await call('GET', `/v2/media/${mediaV2.id}`));
    if (read.url) {
      const url = new URL(read.url as string);
      readPath = `${url.pathname}${url.search}`;
    }
  }

  // Same-day delivery from the nearest pickup location of the shipped reference data.
  const nearby = need('nearby locations', await call('GET', '/v1/nearby_same_day_pickup_locations?zip=94103&radius_miles=25'));
  const nearbyList = (Array.isArray(nearby) ? nearby : (nearby.locations ?? nearby.data ?? nearby.results ?? [])) as Record<string, any>[];
  const location = nearbyList[0];
  const sddBody = (rxToken: string) => ({
    patient_token: patient,
    prescription_tokens: [rxToken],
    shipping_address: { name: 'Bench Patient', street1: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94107', country: 'US', email: 'bench@example.com' },
    external_location: { ncpdpid: location?.ncpdpid ?? location?.ncpdp_id, distance_from_origin: location?.distance_from_origin ?? location?.distance ?? 1 },
  });
  const sdd = need('same-day delivery', await call('POST', '/v1/same_day_delivery', sddBody(rxSdd!)));
  const externalLocations = need('external locations', await call('GET', '/v1/external_locations?zip=94103'));
  const externalList = (Array.isArray(externalLocations) ? externalLocations : (externalLocations.locations ?? externalLocations.data ?? externalLocations.results ?? [])) as Record<string, any>[];

  // Webhooks to the local receiver; one test event to list and redeliver.
  need('webhook endpoint', await call('PUT', '/v1/webhook_endpoint', { url: receiverUrl }));
  const webhookTest = need('webhook test', await call('POST', '/v1/webhook_endpoint/test', { callback_type: 'ORDER' }));
  await new Promise((done) => setTimeout(done, 300));
  const events = need('webhook events', await call('GET', '/v1/webhook_events'));
  const eventList = (Array.isArray(events) ? events : (events.results ?? events.data ?? [])) as Record<string, any>[];

  // An auto-refill subscription, a scheduled fill, an account.
  need('auto-refill', await call('POST', `/v1/auto-refill/${rxAuto}`, { patient_payment_type: 'cash', interval_days: 30, ...address }));
  const submitOn = new Date(Date.now() + 40 * day).toISOString();
  // A refill too soon is held: a prescription filled today, refilled at once.
  const newHeldFill = async () => {
    const [rxFilled] = await prescriptions(1, { last_filled_date: new Date().toISOString(), days_supply: '30', is_refill: 1 });
    const res = await call('POST', '/v1/fill_request', { patient_token: patient, patient_payment_type: 'cash', medications: [{ prescription_token: rxFilled }], ...address, patient_survey: {} });
    return { fill: res.json.request_id as string, scheduled: res.json.details?.scheduled_fill_request?.id as string | undefined };
  };
  const held = await newHeldFill();
  const scheduled = need('scheduled fill', await call('POST', '/scheduled-fill-requests', { original_fill_request_token: held.fill, submit_on: submitOn }));
  const newAccount = async () => {
    const res = await call(
      'POST',
      '/public/accounts',
      { email: `bench-${randomToken(10)}@example.com`, password: 'Sunrise2026', contactNumber: '4155550100', contactName: 'Bench Patient', consents: ['terms_of_service', 'privacy_policy'] },
      { 'x-tenant-id': tenantId, 'x-environment': 'sandbox' },
    );
    return (res.json.id ?? res.json.accountId ?? res.json.account_id) as string;
  };
  const account = await newAccount();

  const directToken = (direct.direct_transfer_token ?? direct.token ?? direct.id ?? direct.details?.direct_transfer_token ?? direct.request_id) as string | undefined;
  const directRead = directToken ? need('direct transfer read', await call('GET', `/v1/direct_transfer/${directToken}`)) : {};
  const erxRead = need('e-prescription read', await call('GET', `/v1/prescription/${erx.prescription_token}`));
  const values: Fixtures['values'] = {
    prescriber: erxRead.prescriber_token ?? directRead.prescriber_token ?? directRead.prescriber?.prescriber_token ?? directRead.details?.prescriber_token,
    tenantId,
    receiverUrl,
    patient,
    rx,
    rxAuto,
    rxSdd,
    erx: erx.prescription_token ?? erx.token,
    fill: fillToken,
    order: fillRead.order_token ?? fillRead.order?.token,
    transfer: transferToken,
    direct: directToken,
    questionnaire,
    scheduleFrom,
    scheduleTo,
    consult,
    labTest: labTest?.id,
    kit: kitList[0]?.id,
    labOrder,
    mediaV1: mediaV1.id,
    mediaV1Fresh: (await call('POST', '/v1/media', { fileName: randomUUID(), title: 'Not uploaded yet' })).json.id,
    mediaV2: mediaV2.id,
    mediaWritePath: writePath,
    mediaReadPath: readPath,
    sdd: sdd.id ?? sdd.same_day_delivery_id,
    externalLocation: externalList[0]?.id,
    webhookEvent: eventList[0]?.id ?? eventList[0]?.webhook_id ?? webhookTest.webhook_id,
    webhookType: eventList[0]?.type ?? eventList[0]?.webhook_type,
    scheduled: scheduled.id ?? held.scheduled,
    heldFill: held.fill,
    account,
  };
  if (debug) console.log(values);
  const pools = { newHeldFill, newConsult, newLabOrder, newAccount, consultBody, labOrderBody, sddBody };

  const tokens = new Map<string, string>();
  const map = (example: string, value: string | undefined) => value !== undefined && tokens.set(example, value);
  map('p7Xk2mQ9rT4vW8yZ1aB3cD5e', patient);
  map('rx9Qw2Er4Ty6Ui8Op0As2Df4', rx);
  map('rx1Zx3Cv5Bn7Mm9Lk2Jh4Gf6', rxSdd);
  map('fr3Hj6Kl9Zx2Cv5Bn8Mq1Wt4', values.fill);
  map('fr2Hj8Kl0Zx3Cv5Bn7Mq9Wd1', values.heldFill);
  map('or5Gh8Jk1Lz4Xc7Vb0Nm3Qw6', values.order);
  map('tr4Hj6Kl8Zx0Cv2Bn4Mq6Wp8', values.transfer);
  map('dt3Fg5Hj7Kl9Zx1Cv3Bn5Mq7', values.direct);
  map('6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b', values.scheduled);
  map('sdd4Hq8Lm2Np6Rt0Vx3Zb5Cd', values.sdd);
  map('0b6f8d2e-3c4a-4f1b-9a7e-5d2c1b0a9f8e', values.mediaV1);
  map('65f1c2a9e4b0d3f7a8c91b41', values.consult);
  map('65f1c2a9e4b0d3f7a8c91b30', values.questionnaire);
  map('7b1e4d2c-5a6f-4e8b-a1c3-9d2e8f7a6b5c', values.labOrder);
  map('c2d9a8e1-6f3b-4a7c-8e5d-1b2a3c4d5e6f', values.kit);
  map('3f6c1a2e-8b4d-4c9a-9e2f-7a1b2c3d4e5f', values.labTest);
  map('5e4d3c2b-1a09-4f8e-b7d6-c5b4a3928170', values.labTest);
  map('acc_9Lm2Qx7Rt4Vw8Yz1', values.account);
  map('msg_2Kq8Vd3Xb7Lm9Np4Rs6Tw1Yz', values.webhookEvent);
  map('6f1c2a3e-8b4d-4c9a-9e2f-7a1b2c3d4e5f', values.externalLocation);

  return { api, customer, apiKey, bearer, credentials, patient, tokens, values, headersFor, prescriptions, call, receiver, pools };
}
