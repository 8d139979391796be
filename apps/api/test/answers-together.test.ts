// Answers finished in one turn of the event loop are written together at its end
// (http/answers-together.ts), unchanged, and the service's own answers go out this way.
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendAnswersTogether, TOGETHER_MAX } from '../src/http/answers-together.js';
import { createPatient } from './support/fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** What happened, in order: an answer written (`wrote <url>`), or a turn of the loop over. */
type Said = string[];

/** Records each answer's write (its `end`) in `said`. */
function recordWrites(app: FastifyInstance, said: Said): void {
  app.addHook('onRequest', (request, reply, done) => {
    const end = reply.raw.end.bind(reply.raw) as (...args: unknown[]) => unknown;
    reply.raw.end = ((...args: unknown[]) => {
      said.push(`wrote ${request.url}`);
      return end(...args);
    }) as typeof reply.raw.end;
    done();
  });
}

/**
 * Two requests whose routes wait on one gate, opened in a turn that then records its end:
 * what was written and when (`said`, read once the turn after the answers is over too), and
 * the answers. `/a` answers `a` when given, else `{ a: 1 }`.
 */
async function gatedAnswers(together: boolean, a?: string | Buffer): Promise<{ said: Said; answers: LightMyRequestResponse[] }> {
  const said: Said = [];
  const app = Fastify();
  if (together) sendAnswersTogether(app);
  recordWrites(app, said);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  app.get('/a', async (_request, reply) => {
    await gate;
    return a === undefined ? { a: 1 } : reply.type('text/plain').send(a);
  });
  app.get('/b', async () => (await gate, { b: 2 }));
  await app.ready();
  try {
    const answering = Promise.all([app.inject('/a'), app.inject('/b')]);
    await new Promise((resolve) => setImmediate(resolve));
    open();
    setImmediate(() => said.push('turn over'));
    const answers = await answering;
    await new Promise((resolve) => setImmediate(resolve));
    return { said, answers };
  } finally {
    await app.close();
  }
}

describe('answers finished in one turn', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('are written together when the turn is over, not each as it is ready', async () => {
    const { said, answers: [a, b] } = await gatedAnswers(true);
    expect(said).toEqual(['turn over', 'wrote /a', 'wrote /b']);
    expect([a!.statusCode, a!.json(), b!.statusCode, b!.json()]).toEqual([200, { a: 1 }, 200, { b: 2 }]);
  });

  it('were written as each was ready without it (what the test above tells apart)', async () => {
    expect((await gatedAnswers(false)).said).toEqual(['wrote /a', 'wrote /b', 'turn over']);
  });

  it('but a large one leaves at once: held, it would stay whole in memory until the turn ends', async () => {
    const large = 'x'.repeat(TOGETHER_MAX + 1);
    const { said, answers } = await gatedAnswers(true, large);
    expect(said).toEqual(['wrote /a', 'turn over', 'wrote /b']);
    expect(answers[0]!.body).toBe(large);
    expect((await gatedAnswers(true, Buffer.alloc(TOGETHER_MAX + 1, 'y'))).said).toEqual(['wrote /a', 'turn over', 'wrote /b']);
    // One of the largest size that waits still waits.
    expect((await gatedAnswers(true, 'x'.repeat(TOGETHER_MAX))).said).toEqual(['turn over', 'wrote /a', 'wrote /b']);
  });

  it('leave unchanged: status, headers, errors and streamed bodies', async () => {
    app = Fastify();
    sendAnswersTogether(app);
    app.get('/created', async (_request, reply) => reply.code(201).header('x-kept', 'yes').send({ made: true }));
    app.get('/refused', async () => {
      throw Object.assign(new Error('no'), { statusCode: 409 });
    });
    app.get('/streamed', async (_request, reply) => reply.type('text/plain').send(Readable.from(['one ', 'two ', 'three'])));
    const created = await app.inject('/created');
    expect([created.statusCode, created.headers['x-kept'], created.json()]).toEqual([201, 'yes', { made: true }]);
    const refused = await app.inject('/refused');
    expect([refused.statusCode, refused.json().message]).toEqual([409, 'no']);
    expect((await app.inject('/streamed')).body).toBe('one two three');
    expect((await app.inject('/missing')).statusCode).toBe(404);
  });
});

describe('the service', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('writes its answers at the end of a turn (from the loop\'s check phase)', async () => {
    const customer = await t.customer();
    const patient = await createPatient(t, customer.sandbox_api_key);
    // Written as soon as it was ready, an answer's write would come from the callback that
    // finished it (a socket's data, a promise); written together, from the loop's immediates.
    const writers: boolean[] = [];
    const listener = (_request: unknown, response: ServerResponse) => {
      const end = response.end.bind(response) as (...args: unknown[]) => unknown;
      response.end = ((...args: unknown[]) => {
        const limit = Error.stackTraceLimit;
        Error.stackTraceLimit = 100;
        writers.push(/\bprocessImmediate\b/.test(new Error().stack ?? ''));
        Error.stackTraceLimit = limit;
        return end(...args);
      }) as typeof response.end;
    };
    t.app.fastify.server.prependListener('request', listener);
    try {
      const read = await t.raw('GET', `/v1/patient/${patient}`, { headers: { authorization: `ApiKey ${customer.sandbox_api_key}` } });
      const missing = await t.raw('GET', '/v1/patient/nobody', { headers: { authorization: `ApiKey ${customer.sandbox_api_key}` } });
      expect([read.status, missing.status]).toEqual([200, 404]);
      expect(writers).toEqual([true, true]);
    } finally {
      t.app.fastify.server.removeListener('request', listener);
    }
  });
});
