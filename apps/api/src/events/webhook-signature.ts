import { createHmac } from 'node:crypto';

/**
 * The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`,
 * keyed with the base64-decoded part of the secret after `whsec_`. (The client package's
 * verify helper computes the same; the server keeps its own copy because the client is
 * not one of its runtime dependencies.)
 */
export function signWebhook({ id, timestamp, body, secret }: { id: string; timestamp: number; body: string; secret: string }): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
