/**
 * `pnpm bench:operations` (or `pnpm bench -- --all`): every operation of the route table, each
 * for a short run against the service on the embedded database (or DATABASE_URL=postgres://...),
 * one table row each, beside a bare Fastify route for scale. A regression anywhere shows.
 *
 *   BENCH_OPERATION_SECONDS=2 BENCH_CONNECTIONS=16 pnpm bench:operations
 *   pnpm bench:operations --smoke      (or BENCH_SMOKE=1: 0.3 s or 24 answers, 4 connections; what CI runs)
 *
 * Smoke mode runs each operation until BENCH_SMOKE_REQUESTS answers are in or its 0.3 s are up,
 * whichever comes first, but never stops before the first answer: an operation slower than
 * 0.3 s a request on a busy machine still shows its answer rather than none. autocannon
 * samples every 25 ms there, not every second, so a short run is not held to a whole second;
 * req/s is then answers over the run's time.
 *
 * Requests come from the spec's own examples (bench/spec-requests.ts) with the examples'
 * tokens swapped for fixtures made here (bench/operation-fixtures.ts); an operation the bench
 * does not know how to call yet still gets a row, marked "no request". Exits non-zero if the
 * bench crashes or an operation expected to succeed answered only errors (a broken fixture).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { routes } from '../src/generated/routes.js';
import { makeFixtures, type Fixtures } from './operation-fixtures.js';
import { recipesFor, type Recipe } from './operation-recipes.js';
import { benchServiceEnv } from './bench-service.js';
import { freePort, serviceCommand, startProcess, type Started } from './processes.js';
import { buildRequest, loadSpecOperations } from './spec-requests.js';

const apiRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = join(apiRoot, 'node_modules', '.bin', 'tsx');
const smoke = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';
const seconds = Number(process.env.BENCH_OPERATION_SECONDS ?? (smoke ? 0.3 : 2));
const connections = Number(process.env.BENCH_CONNECTIONS ?? (smoke ? 4 : 16));
/** Smoke mode: at most this many answers per operation (within its `seconds`). */
const smokeRequests = smoke ? Number(process.env.BENCH_SMOKE_REQUESTS ?? 24) : undefined;
/** autocannon's sample interval: a run ends at the first sample after its time or its requests. */
const sampleInt = smoke ? 25 : 1000;
/** Fresh fixtures made for each operation that uses its fixture up: that many requests, no more. */
const poolSize = Number(process.env.BENCH_POOL ?? (smoke ? 4 : 100));

interface Row {
  operation: string;
  request: string;
  rps: number | string;
  p50: string;
  p99: string;
  ok: number;
  non2xx: number | string;
  note: string;
}

async function run(options: autocannon.Options): Promise<autocannon.Result> {
  if (!smokeRequests) return autocannon({ connections, duration: seconds, sampleInt, ...options });
  // A pool's run is its `amount` of fresh fixtures, every one of them.
  if (options.amount) return autocannon({ connections, sampleInt, ...options });
  // Smoke: up to `smokeRequests` answers, stopped once `seconds` are up and at least one answer is in.
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon({ connections, sampleInt, amount: smokeRequests, ...options }, (error, result) => (error ? reject(error) : resolve(result)));
      let answered = false;
      let timeUp = false;
      instance.on('response', () => {
        answered = true;
        if (timeUp) instance.stop();
      });
      timer = setTimeout(() => {
        timeUp = true;
        if (answered) instance.stop();
      }, seconds * 1000);
    });
  } finally {
    clearTimeout(timer);
  }
}

/** Requests per second of a run: autocannon's per-sample average scaled to a second, or for a run of so many requests, answers over its time. */
function rateOf(result: autocannon.Result): number {
  if (smokeRequests) return Math.round(result.requests.total / Math.max(result.duration, 0.01));
  return Math.round(result.requests.average * (1000 / sampleInt));
}

async function main(): Promise<void> {
  const began = Date.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'pharmacy-bench-ops-'));
  const databaseUrl = process.env.DATABASE_URL ?? join(dataDir, 'bench.db');
  const started: Started[] = [];
  let failedOperations: string[] = [];
  try {
    // As `pnpm bench`, with this pharmacy as the spec's direct-transfer example names it
    // (`transfer_to`), and refills too soon held as the service holds them by default: the
    // scheduled-fill operations need a held fill request to act on.
    const env = {
      ...benchServiceEnv(dataDir, databaseUrl),
      EARLY_REFILL_TOLERANCE: '0.25',
      PHARMACY_NAME: 'Platform Pharmacy',
      PHARMACY_ID_NUMBER: '0598765',
      PHARMACY_PHARMACIST: 'Morgan Reyes',
    };
    const apiPort = await freePort();
    const api = `http://127.0.0.1:${apiPort}`;
    const barePort = await freePort();
    const bare = `http://127.0.0.1:${barePort}`;
    const fixturesReady = makeFixtures({ api, env, dataDir, poolSize, apiRoot, startService: async () => {
      started.push(await startProcess(...serviceCommand(), { ...env, PORT: String(apiPort) }, `${api}/v1/open-api/api.yml`));
    } });
    started.push(await startProcess(tsx, [join(apiRoot, 'bench', 'bare-server.ts')], { PORT: String(barePort) }, `${bare}/bare`));
    const fixtures: Fixtures = await fixturesReady;
    const setupSeconds = (Date.now() - began) / 1000;

    const spec = loadSpecOperations();
    const recipes = recipesFor(fixtures, spec, poolSize);
    const bareResult = await run({ url: `${bare}/bare` });
    const bareRps = rateOf(bareResult);

    const rows: Row[] = [];
    const notes: string[] = [];
    const errorSamples: string[] = [];
    // Operations that use their fixture up run last, each on a pool of fresh fixtures.
    const ordered = [...routes].sort((a, b) => Number(Boolean(recipes[a.operationId]?.last)) - Number(Boolean(recipes[b.operationId]?.last)));
    const only = process.env.BENCH_ONLY?.split(',');
    /** Wall time of each operation's row (its pool of fixtures included), for the summary. */
    const took: [string, number][] = [];
    const operationsBegan = Date.now();
    for (const route of ordered) {
      const id = route.operationId;
      if (only && !only.includes(id)) continue;
      const rowBegan = Date.now();
      let firstError: string | undefined;
      const onResponse = (status: number, body: string) => {
        if ((status < 200 || status > 299) && firstError === undefined) firstError = `${status} ${body.replace(/\s+/g, ' ').slice(0, 160)}`;
      };
      const request = `${route.method} ${route.path}`;
      const recipe: Recipe | undefined = recipes[id];
      const op = spec.get(id);
      if (!recipe || !op) {
        rows.push({ operation: id, request, rps: '-', p50: '-', p99: '-', ok: 0, non2xx: '-', note: !op ? 'no request (not in the bundled spec)' : 'no request (the bench does not know how to call it yet)' });
        continue;
      }
      const headers = recipe.headers ?? fixtures.headersFor(route.security);
      let options: autocannon.Options;
      let note = recipe.note ?? '';
      if (recipe.pool) {
        const values = await recipe.pool();
        if (values.length === 0) {
          rows.push({ operation: id, request, rps: '-', p50: '-', p99: '-', ok: 0, non2xx: '-', note: 'no fresh fixture could be made (see the fixture errors above)' });
          failedOperations.push(id);
          continue;
        }
        let next = 0;
        const first = recipe.build(values[0]!);
        options = {
          url: api,
          amount: values.length,
          // autocannon refuses more connections than requests.
          connections: Math.max(1, Math.min(connections, values.length)),
          requests: [
            {
              method: first.method as autocannon.Request['method'],
              path: first.path,
              headers: { ...headers, ...(first.contentType ? { 'content-type': first.contentType } : {}) },
              onResponse,
              ...(recipe.rawBody ? { body: recipe.rawBody } : {}),
              setupRequest: (req) => {
                const built = recipe.build(values[next++ % values.length]!);
                return { ...req, path: built.path, ...(built.body !== undefined ? { body: built.body } : {}) };
              },
            },
          ],
        };
        note = `${values.length} fresh fixtures, one request each${note ? `; ${note}` : ''}`;
      } else {
        const built = recipe.vary ? recipe.vary(0) : buildRequest(op, fixtures.tokens, recipe.options);
        let n = 0;
        options = {
          url: api,
          requests: [
            {
              method: built.method as autocannon.Request['method'],
              path: built.path,
              headers: { ...headers, ...(built.contentType ? { 'content-type': built.contentType } : {}) },
              onResponse,
              ...(recipe.rawBody ? { body: recipe.rawBody } : built.body !== undefined ? { body: built.body } : {}),
              ...(recipe.vary
                ? {
                    setupRequest: (req: autocannon.Request) => {
                      const v = recipe.vary!(++n);
                      return { ...req, path: v.path, ...(v.body !== undefined ? { body: v.body } : {}) };
                    },
                  }
                : {}),
            },
          ],
        };
      }
      const result = await run(options);
      const ok = result['2xx'];
      const non2xx = result.non2xx + result.errors + result.timeouts;
      if (ok === 0 && !recipe.expectError) failedOperations.push(id);
      if (recipe.expectError && ok === 0) note = `expected error: ${recipe.expectError}${note ? `; ${note}` : ''}`;
      if (firstError) errorSamples.push(`${id}: ${firstError}`);
      rows.push({
        operation: id,
        request,
        // A pooled run is a fixed, small number of requests: its latency is the reading, not a rate.
        rps: recipe.pool ? `${result.requests.total} req` : rateOf(result),
        p50: `${result.latency.p50} ms`,
        p99: `${result.latency.p99} ms`,
        ok,
        non2xx,
        note,
      });
      took.push([id, (Date.now() - rowBegan) / 1000]);
    }
    const operationsSeconds = (Date.now() - operationsBegan) / 1000;
    for (const [id, recipe] of Object.entries(recipes)) if (!routes.some((r) => r.operationId === id)) notes.push(`recipe ${id} names no operation of the route table`);

    const mode = smoke ? 'smoke' : 'full';
    console.log(
      `\nevery operation (${mode}): ${smokeRequests ? `${smokeRequests} requests` : `${seconds}s`} per operation, ${connections} connections, database ${databaseUrl.startsWith('postgres') ? 'postgres' : 'embedded (SQLite)'}; ` +
        `bare Fastify route ${bareRps} req/s (p50 ${bareResult.latency.p50} ms, p99 ${bareResult.latency.p99} ms) in the same run\n`,
    );
    console.table(rows.map((r) => ({ ...r, 'of bare': typeof r.rps === 'number' ? `${((r.rps / bareRps) * 100).toFixed(1)}%` : '-' })));
    const answered = rows.filter((r) => typeof r.non2xx === 'number');
    const succeeded = answered.filter((r) => r.ok > 0 && r.non2xx === 0).length;
    const mixed = answered.filter((r) => r.ok > 0 && (r.non2xx as number) > 0).length;
    const errors = answered.filter((r) => r.ok === 0).length;
    console.log(
      `${rows.length} operations: ${succeeded} only 2xx, ${mixed} some 2xx and some errors, ${errors} only errors, ${rows.length - answered.length} no request`,
    );
    console.log(`operations that use their fixture up (run last, on fresh fixtures): ${Object.entries(recipes).filter(([, r]) => r.last).map(([id, r]) => `${id} (${r.why})`).join('; ')}`);
    for (const note of notes) console.log(note);
    if (errorSamples.length) console.log(`\nfirst error answer of each operation that had one:\n  ${errorSamples.join('\n  ')}`);
    const slowest = took.sort((a, b) => b[1] - a[1]).slice(0, 5).map(([id, s]) => `${id} ${s.toFixed(1)} s`).join(', ');
    console.log(`operations ${operationsSeconds.toFixed(1)} s (slowest, fixtures included: ${slowest})`);
    console.log(`setup ${setupSeconds.toFixed(1)} s, whole run ${((Date.now() - began) / 1000).toFixed(1)} s; the machine is shared, so the numbers are noisy`);
    if (failedOperations.length) {
      console.error(`\nFAILED: these operations should succeed but answered only errors (a broken fixture?): ${failedOperations.join(', ')}`);
      process.exitCode = 1;
    }
  } finally {
    for (const s of started.reverse()) await s.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
// The local webhook receiver and autocannon's agents would keep the process alive.
process.exit(process.exitCode ?? 0);
