import { readFileSync } from 'node:fs';
import { openApiDocumentPath } from '@pharmacy/contract';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import type { Db } from '../../src/db/database.js';

/** The event schema each callback type must satisfy (the oneOf unions pick the status variant). */
const SCHEMA_OF: Record<string, string> = {
  NOTIFY_RX: 'NotifyRxEvent',
  TRANSFER: 'TransferEvent',
  TRANSFER_CONTACT: 'TransferContactEvent',
  DIRECT_TRANSFER: 'DirectTransferEvent',
  ORDER: 'OrderEvent',
  SHIPMENT: 'ShipmentEvent',
  SAME_DAY_DELIVERY: 'SameDayDeliveryEvent',
};

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

/** Compiles `#/components/schemas/<name>` of the bundle with ajv 2020, as the contract validator loads it. */
function validator(name: string): ValidateFunction {
  if (!ajv) {
    const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof addFormatsModule.default;
    ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema({ ...(parse(readFileSync(openApiDocumentPath, 'utf8')) as object), $id: 'bundle.json' });
  }
  let fn = compiled.get(name);
  if (!fn) {
    fn = ajv.getSchema(`bundle.json#/components/schemas/${name}`)!;
    compiled.set(name, fn);
  }
  return fn;
}

/** Problems of an envelope against its event schema and the WebhookEvent union; [] when valid. */
export function eventProblems(event: { callback_type: string; id?: string }): string[] {
  // `id` is the outbox row's (the webhook-id header), not part of the envelope.
  const { id: _id, ...envelope } = event;
  const problems: string[] = [];
  for (const name of [SCHEMA_OF[envelope.callback_type] ?? 'missing', 'WebhookEvent']) {
    if (name === 'missing') {
      problems.push(`no schema for ${envelope.callback_type}`);
      continue;
    }
    const validate = validator(name);
    if (!validate(envelope)) problems.push(`${name}: ${JSON.stringify(validate.errors?.slice(0, 5))}`);
  }
  return problems;
}

export interface StoredEvent {
  id: string;
  callback_type: string;
  status?: string;
  request_id?: string;
  details: Record<string, any>;
  timestamp: number;
}

/** A customer's events in recording order, straight from the outbox. */
export async function eventsOf(db: Db, customerId: string): Promise<StoredEvent[]> {
  const rows = await db.selectFrom('events').select(['id', 'payload', 'sequence']).where('customer_id', '=', customerId).execute();
  return rows
    .sort((a, b) => Number(a.sequence) - Number(b.sequence))
    .map((r) => ({ id: r.id, ...(JSON.parse(r.payload) as Omit<StoredEvent, 'id'>) }));
}

/** Polls until `check` answers a value (not undefined/false), or fails after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T | undefined | false>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Problems of a delivery body against the request schema of its webhook in the spec (`webhooks.<type>`); [] when valid. */
export function webhookBodyProblems(callbackType: string, body: unknown): string[] {
  validator('WebhookEnvelope');
  const validate = ajv!.getSchema(`bundle.json#/webhooks/${callbackType}/post/requestBody/content/application~1json/schema`);
  if (!validate) return [`no webhook ${callbackType} in the spec`];
  return validate(body) ? [] : [JSON.stringify(validate.errors?.slice(0, 5))];
}
