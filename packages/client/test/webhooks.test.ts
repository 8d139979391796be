import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type PharmacyWebhookEvent,
  type PharmacyWebhookEventOf,
  type WebhookVerificationReason,
} from '../src/index.js';

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const secret = newSecret();
const id = 'msg_2Kq8Vd3Xb7Lm9Np4Rs6Tw1Yz';
const sentAt = 1768496645;
const now = new Date((sentAt + 2) * 1000);
const body = JSON.stringify({
  callback_type: 'NOTIFY_RX',
  timestamp: sentAt,
  details: {
    medication_name: 'Atorvastatin 20 mg tablet',
    prescriber: 'Dr. Alex Smith',
    prescription_token: 'rx9Qw2Er4Ty6Ui8Op0As2Df4',
    patient_token: 'p7Xk2mQ9rT4vW8yZ1aB3cD5e',
    patient_token_duplicates: [],
    merged_patients: [],
    location: 'Austin, TX',
    rx_link: 'https://pharmacy.example.com/rx/rx9Qw2Er4Ty6Ui8Op0As2Df4',
  },
});

function headersFor(signature: string, timestamp = sentAt): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

function reasonOf(run: () => unknown): WebhookVerificationReason | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return undefined;
}

describe('signing a delivery', () => {
  it('is v1 and the base64 HMAC-SHA256 of id.timestamp.body keyed with the decoded secret', () => {
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${sentAt}.${body}`).digest('base64');
    expect(signWebhook({ id, timestamp: sentAt, body, secret })).toBe(`v1,${expected}`);
  });

  it('matches the Standard Webhooks reference vector', () => {
    // From the Standard Webhooks specification's test suite.
    expect(
      signWebhook({
        id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
        timestamp: 1614265330,
        body: '{"test": 2432232314}',
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      }),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('refuses a secret that is not base64', () => {
    expect(() => signWebhook({ id, timestamp: sentAt, body, secret: 'whsec_' })).toThrow(TypeError);
    expect(() => signWebhook({ id, timestamp: sentAt, body, secret: 'whsec_not base64!' })).toThrow(TypeError);
  });
});

describe('verifying a delivery', () => {
  const signature = signWebhook({ id, timestamp: sentAt, body, secret });

  it('answers the parsed event, typed, narrowed by callback_type', () => {
    const event = verifyWebhook({ headers: headersFor(signature), body, secret, now });
    expect(event).toEqual(JSON.parse(body));
    expectTypeOf(event).toEqualTypeOf<PharmacyWebhookEvent>();
    if (event.callback_type === 'NOTIFY_RX') {
      expectTypeOf(event.details.prescription_token).toEqualTypeOf<string>();
      expect(event.details.prescription_token).toBe('rx9Qw2Er4Ty6Ui8Op0As2Df4');
    } else {
      throw new Error('expected a NOTIFY_RX event');
    }
    expectTypeOf<PharmacyWebhookEventOf<'ORDER'>['callback_type']>().toEqualTypeOf<'ORDER'>();
  });

  it('reads a Headers object, headers in any case, and a Buffer body', () => {
    const headers = new Headers(headersFor(signature));
    expect(verifyWebhook({ headers, body, secret, now })).toEqual(JSON.parse(body));
    const shouting = { 'Webhook-Id': id, 'WEBHOOK-TIMESTAMP': String(sentAt), 'Webhook-Signature': signature };
    expect(verifyWebhook({ headers: shouting, body: Buffer.from(body), secret, now })).toEqual(JSON.parse(body));
  });

  it('accepts now as milliseconds, and the default tolerance of five minutes either way', () => {
    expect(verifyWebhook({ headers: headersFor(signature), body, secret, now: (sentAt + 300) * 1000 })).toBeTruthy();
    expect(verifyWebhook({ headers: headersFor(signature), body, secret, now: (sentAt - 300) * 1000 })).toBeTruthy();
  });

  it('accepts any of several signatures, as sent while a secret is rotated', () => {
    const rotated = newSecret();
    const both = `${signWebhook({ id, timestamp: sentAt, body, secret: rotated })} ${signature}`;
    expect(verifyWebhook({ headers: headersFor(both), body, secret, now })).toBeTruthy();
    expect(verifyWebhook({ headers: headersFor(both), body, secret: rotated, now })).toBeTruthy();
    // A receiver that holds both secrets accepts a delivery signed with either.
    expect(verifyWebhook({ headers: headersFor(signature), body, secret: [rotated, secret], now })).toBeTruthy();
    // Unknown versions and garbage entries are skipped.
    expect(verifyWebhook({ headers: headersFor(`v2,abc garbage ${signature}`), body, secret, now })).toBeTruthy();
  });

  const refusals: Array<[string, () => unknown, WebhookVerificationReason]> = [
    ['a tampered body', () => verifyWebhook({ headers: headersFor(signature), body: body.replace('Austin', 'Boston'), secret, now }), 'no_matching_signature'],
    ['another secret', () => verifyWebhook({ headers: headersFor(signature), body, secret: newSecret(), now }), 'no_matching_signature'],
    ['a changed id', () => verifyWebhook({ headers: { ...headersFor(signature), 'webhook-id': 'msg_other' }, body, secret, now }), 'no_matching_signature'],
    ['a replayed timestamp', () => verifyWebhook({ headers: headersFor(signature, sentAt + 1), body, secret, now }), 'no_matching_signature'],
    ['a signature of another version', () => verifyWebhook({ headers: headersFor(signature.replace('v1,', 'v1a,')), body, secret, now }), 'no_matching_signature'],
    ['an old delivery', () => verifyWebhook({ headers: headersFor(signature), body, secret, now: new Date((sentAt + 301) * 1000) }), 'timestamp_too_old'],
    ['an old delivery under a tighter tolerance', () => verifyWebhook({ headers: headersFor(signature), body, secret, now, toleranceSeconds: 1 }), 'timestamp_too_old'],
    ['a delivery from the future', () => verifyWebhook({ headers: headersFor(signature), body, secret, now: new Date((sentAt - 301) * 1000) }), 'timestamp_too_new'],
    ['a timestamp that is not seconds', () => verifyWebhook({ headers: headersFor(signature, 'soon' as never), body, secret, now }), 'invalid_timestamp'],
    ['no webhook-id', () => verifyWebhook({ headers: { ...headersFor(signature), 'webhook-id': undefined } as never, body, secret, now }), 'missing_header'],
    ['no webhook-signature', () => verifyWebhook({ headers: { 'webhook-id': id, 'webhook-timestamp': String(sentAt) }, body, secret, now }), 'missing_header'],
    ['no webhook-timestamp', () => verifyWebhook({ headers: new Headers({ 'webhook-id': id, 'webhook-signature': signature }), body, secret, now }), 'missing_header'],
  ];
  it.each(refusals)('refuses %s', (_, run, reason) => {
    expect(reasonOf(run)).toBe(reason);
  });

  it('says which header is missing', () => {
    expect(() => verifyWebhook({ headers: {}, body, secret, now })).toThrow('The webhook-id header is missing.');
  });

  it('refuses a signed body that is not an event', () => {
    const notJson = 'hello';
    const signed = signWebhook({ id, timestamp: sentAt, body: notJson, secret });
    expect(reasonOf(() => verifyWebhook({ headers: headersFor(signed), body: notJson, secret, now }))).toBe('invalid_body');
  });
});
