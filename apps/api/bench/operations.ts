/**
 * `pnpm bench:operations` (or `pnpm bench -- --all`): every operation of the route table, each
 * for a short run against the service on the embedded database (or DATABASE_URL=postgres://...),
 * one table row each, beside a bare Fastify route for scale. A regression anywhere shows.
 *
 *   BENCH_OPERATION_SECONDS=2 BENCH_CONNECTIONS=16 pnpm bench:operations
 *   pnpm bench:operations --smoke      (or BENCH_SMOKE=1: 0.3 s, 4 connections; what CI runs)
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
/** Fresh fixtures made for each operation that uses its fixture up: that many requests, no more. */
const poolSize = Number(process.env.BENCH_POOL ?? (smoke ? 8 : 100));

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
  return autocannon({ connections, duration: seconds, ...options });
}

async function main(): Promise<void> {
  const began = Date.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'pharmacy-bench-ops-'));
  const databaseUrl = process.env.DATABASE_URL ?? join(dataDir, 'bench.db');
  const started: Started[] = [];
  let failedOperations: string[] = [];
  try {
    // As `pnpm bench`, with this pharmacy as the spec's direct-transfer example names it (`transfer_to`).
    const env = {
      ...benchServiceEnv(dataDir, databaseUrl),
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
    const bareRps = Math.round(bareResult.requests.average);

    const rows: Row[] = [];
    const notes: string[] = [];
    const errorSamples: string[] = [];
    // Operations that use their fixture up run last, each on a pool of fresh fixtures.
    const ordered = [...routes].sort((a, b) => Number(Boolean(recipes[a.operationId]?.last)) - Number(Boolean(recipes[b.operationId]?.last)));
    const only = process.env.BENCH_ONLY?.split(',');
    for (const route of ordered) {
      const id = route.operationId;
      if (only && !only.includes(id)) continue;
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
        let next = 0;
        const first = recipe.build(values[0]!);
        options = {
          url: api,
          amount: values.length,
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
        rps: recipe.pool ? `${result.requests.total} req` : Math.round(result.requests.average),
        p50: `${result.latency.p50} ms`,
        p99: `${result.latency.p99} ms`,
        ok,
        non2xx,
        note,
      });
    }
    for (const [id, recipe] of Object.entries(recipes)) if (!routes.some((r) => r.operationId === id)) notes.push(`recipe ${id} names no operation of the route table`);

    const mode = smoke ? 'smoke' : 'full';
    console.log(
      `\nevery operation (${mode}): ${seconds}s per operation, ${connections} connections, database ${databaseUrl.startsWith('postgres') ? 'postgres' : 'embedded (libsql)'}; ` +
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
