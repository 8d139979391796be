import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { RefusedAddressError, type AddressPolicy } from './url-policy.js';
// The client's signer: integrators verify with the same code the service signs with.
import { signWebhook } from '@pharmacy/client/webhooks';

interface WebhookRequest {
  url: string;
  id: string;
  body: string;
  secret: string;
  timeoutMs: number;
  /** When set, only addresses this policy deems public are reached (production without WEBHOOK_ALLOW_PRIVATE_URLS). */
  publicOnly?: AddressPolicy;
}

export interface WebhookResult {
  delivered: boolean;
  /** The receiver's status; null when it did not answer (timeout, refused, TLS, address). */
  statusCode: number | null;
  /** Why it failed, for logs: never the body. */
  error?: string;
}

/**
 * Connections are kept open between deliveries (receivers usually get many). Public-only
 * requests use agents of their own: their sockets were opened through the address check
 * (`AddressPolicy.lookup`), which runs on every new connection, so a socket opened without it
 * is never reused for them. Idle sockets close after 4 s, before the 5 s idle timeout
 * common to receivers (Node's default), so a delivery rarely meets a closing socket.
 */
const agentOptions = { keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 4000 };
const agents = {
  any: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
  publicOnly: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
};

/** One signed POST of `body` exactly as given; a `2xx` within the timeout is success. */
export function sendWebhook(request: WebhookRequest): Promise<WebhookResult> {
  return new Promise((done) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return done({ delivered: false, statusCode: null, error: 'invalid url' });
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (request.publicOnly && isIP(host) && request.publicOnly.isNonPublic(host)) {
      return done({ delivered: false, statusCode: null, error: new RefusedAddressError(host).message });
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(request.body),
      'user-agent': 'pharmacy-webhooks/1',
      'webhook-id': request.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook({ id: request.id, timestamp, body: request.body, secret: request.secret }),
    };
    const secure = url.protocol === 'https:';
    const transport = secure ? https : http;
    const agent = agents[request.publicOnly ? 'publicOnly' : 'any'][secure ? 'https' : 'http'];
    let settled = false;
    const finish = (result: WebhookResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done(result);
    };
    const req = transport.request(
      url,
      { method: 'POST', headers, agent, ...(request.publicOnly ? { lookup: request.publicOnly.lookup as never } : {}) },
      (res) => {
        const statusCode = res.statusCode ?? null;
        // The answer's body is not needed; read it to the end so the socket closes cleanly.
        res.on('data', () => {});
        res.on('end', () => finish({ delivered: statusCode !== null && statusCode >= 200 && statusCode < 300, statusCode }));
        res.on('error', () => finish({ delivered: false, statusCode, error: 'response aborted' }));
      },
    );
    const timer = setTimeout(() => {
      finish({ delivered: false, statusCode: null, error: `timeout after ${request.timeoutMs} ms` });
      req.destroy();
    }, request.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => finish({ delivered: false, statusCode: null, error: error.code ?? error.message }));
    req.end(request.body);
  });
}
