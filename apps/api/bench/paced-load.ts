/**
 * An open-loop load at a steady rate: request i is due at start + i / rate, sent when due
 * over a pool of keep-alive connections, and its latency counts from when it was due (a
 * request that waits for a free connection waits on the clock). autocannon's `overallRate`
 * is not this: each connection sends its share of a second back to back and then idles
 * until the next second, so "half of peak" runs at peak for half of each second, and its
 * p99 is the peak's.
 */
import { Agent, request } from 'node:http';
import type autocannon from 'autocannon';
import type { Measured } from './fulfilment-load.js';

export interface PacedOptions {
  /** autocannon's options for the operation (its url and first request: method, path, headers, setupRequest for the body). */
  load: autocannon.Options;
  rate: number;
  durationSeconds: number;
  connections: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0;
}

export async function pacedLoad({ load, rate, durationSeconds, connections }: PacedOptions): Promise<Measured> {
  const url = new URL(String(load.url));
  const template = (load.requests?.[0] ?? {}) as autocannon.Request;
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const total = Math.max(1, Math.round(rate * durationSeconds));
  const latencies: number[] = [];
  let non2xx = 0;
  let serverErrors = 0;
  let errors = 0;
  let sent = 0;
  let settled = 0;
  const start = performance.now();
  const send = (due: number) => {
    const setup = template.setupRequest as ((request: autocannon.Request, context: object) => autocannon.Request) | undefined;
    const built = setup ? setup({ ...template }, {}) : template;
    const body = built.body === undefined ? undefined : String(built.body);
    const headers: Record<string, string> = { ...(template.headers as Record<string, string>) };
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const req = request(
      { agent, host: url.hostname, port: url.port, method: template.method ?? 'GET', path: built.path ?? template.path ?? url.pathname, headers },
      (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - due);
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) non2xx++;
          if (status >= 500) serverErrors++;
          settled++;
        });
      },
    );
    req.on('error', () => {
      errors++;
      settled++;
    });
    req.end(body);
  };
  await new Promise<void>((done) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + (sent * 1000) / rate <= now) send(start + (sent++ * 1000) / rate);
      if (sent < total) setTimeout(tick, 1);
      else {
        const drain = () => (settled >= total ? done() : setTimeout(drain, 5));
        drain();
      }
    };
    tick();
  });
  agent.destroy();
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const ms = (v: number) => Math.round(v * 10) / 10;
  return {
    requestsPerSecond: Math.round(settled / elapsed),
    p50: ms(percentile(latencies, 50)),
    p90: ms(percentile(latencies, 90)),
    p99: ms(percentile(latencies, 99)),
    max: ms(latencies.at(-1) ?? 0),
    non2xx,
    serverErrors,
    errors,
  };
}
