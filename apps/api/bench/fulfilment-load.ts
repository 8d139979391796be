/**
 * The load of the scale-out and latency benches (bench/scale-out.ts, bench/latency.ts): a
 * sandbox customer made with the admin CLI (which migrates the database), one patient,
 * prescriptions with fills to spare, and the three operations driven against them:
 * reading the patient (uncached), creating new patients, creating fill requests.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { BENCH_SHIPPING, seedPrescriptions } from './bench-service.js';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * What the service processes of these benches run with beside benchServiceEnv: the read
 * cache off (what a read costs; processes sharing PostgreSQL need it off).
 */
export const LOAD_ENV = { READ_CACHE_TTL_MS: '0' } as const;

export const OPERATIONS = ['GET /v1/patient/{token}', 'PUT /v1/patient (new)', 'POST /v1/fill_request'] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface Customer {
  customer_id: string;
  sandbox_api_key: string;
}

/** The records the load works on, and the API key's headers. */
export interface Fulfilment {
  customer: Customer;
  headers: Record<string, string>;
  patientToken: string;
  prescriptionTokens: string[];
}

/** A sandbox customer, made by the admin CLI on the service's env (it migrates the database first). */
export function createCustomer(env: Record<string, string>, name: string): Customer {
  const printed = execFileSync(process.execPath, [join(apiRoot, 'bin', 'admin.mjs'), 'create-customer', '--name', name], { env: { ...process.env, ...env }, encoding: 'utf8' });
  return JSON.parse(printed) as Customer;
}

let patients = 0;
function patientBody(): string {
  return JSON.stringify({ first_name: `Load${++patients}`, last_name: 'Patient', dob: '19800131', gender: 'female', zip: '94107' });
}

/**
 * The customer's patient (made through `api`) and `count` prescriptions of it with fills to
 * spare, stored as the pharmacy would on receiving them (the API has no operation that
 * creates prescriptions), so concurrent fill requests seldom wait on one prescription's row.
 */
export async function prepareFulfilment(api: string, databaseUrl: string, customer: Customer, count: number): Promise<Fulfilment> {
  const headers = { authorization: `ApiKey ${customer.sandbox_api_key}`, 'content-type': 'application/json' };
  const created = await fetch(`${api}/v1/patient`, { method: 'PUT', headers, body: patientBody() });
  if (!created.ok) throw new Error(`PUT /v1/patient answered ${created.status}: ${await created.text()}`);
  const { patient_token: patientToken } = (await created.json()) as { patient_token: string };
  const prescriptionTokens = await seedPrescriptions(databaseUrl, customer.customer_id, patientToken, count);
  return { customer, headers, patientToken, prescriptionTokens };
}

/**
 * autocannon's options for one operation against one service address, or several (its
 * connections are spread over them in turn: one load generator, one latency histogram).
 */
export function operationLoad(operation: Operation, fulfilment: Fulfilment, urls: string | string[]): autocannon.Options {
  const { headers, patientToken, prescriptionTokens } = fulfilment;
  // autocannon takes several addresses, though its types name one.
  const url = urls as string;
  switch (operation) {
    case 'GET /v1/patient/{token}':
      return { url, requests: [{ method: 'GET', path: `/v1/patient/${patientToken}`, headers }] };
    case 'PUT /v1/patient (new)':
      return { url, requests: [{ method: 'PUT', path: '/v1/patient', headers, setupRequest: (req) => ({ ...req, body: patientBody() }) }] };
    case 'POST /v1/fill_request': {
      let fills = 0;
      const body = () =>
        JSON.stringify({
          patient_token: patientToken,
          patient_payment_type: 'cash',
          medications: [{ prescription_token: prescriptionTokens[++fills % prescriptionTokens.length] }],
          ...BENCH_SHIPPING,
          patient_survey: {},
        });
      return { url, requests: [{ method: 'POST', path: '/v1/fill_request', headers, setupRequest: (req) => ({ ...req, body: body() }) }] };
    }
  }
}

/** What one autocannon run measured. */
export interface Measured {
  requestsPerSecond: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  non2xx: number;
  /** Answers 500 to 599 (among non2xx). */
  serverErrors: number;
  /** Connection errors and timeouts. */
  errors: number;
}

export async function measure(options: autocannon.Options): Promise<Measured> {
  const result = await autocannon(options);
  const serverErrors = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => Number(code) >= 500)
    .reduce((sum, [, stats]) => sum + (stats.count ?? 0), 0);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    serverErrors,
    errors: result.errors + result.timeouts,
  };
}
