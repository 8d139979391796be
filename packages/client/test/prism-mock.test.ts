/**
 * Every operation of the bundle, called once through the client against a Prism mock of that
 * same bundle, built only from the spec's own examples. Proves the examples are valid requests,
 * that the mock answers 2xx, and (through contractMiddleware) that its answers match the spec.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { openApiDocumentPath } from '@pharmacy/contract';
import { contractMiddleware, loadOpenApiDocument } from '@pharmacy/contract/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPharmacyClient, type PharmacyClient } from '../src/index.js';

type Node = Record<string, any>;
interface ExampleRequest {
  name: string;
  method: string;
  path: string;
  params: { path: Record<string, unknown>; query: Record<string, unknown> };
  body?: unknown;
  headers: Record<string, string>;
  parseAs: 'json' | 'text';
  /** For a body that is not JSON (a file upload): sent as the example's text. */
  bodySerializer?: (body: unknown) => unknown;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const repoRoot = join(dirname(openApiDocumentPath), '..', '..');
const document = loadOpenApiDocument();

function deref(node: Node | undefined): Node | undefined {
  if (typeof node?.$ref !== 'string') return node;
  const target = (node.$ref as string)
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((acc, key) => acc?.[key], document);
  return deref(target);
}

function exampleOf(parameter: Node): unknown {
  const first = Object.values<Node>(parameter.examples ?? {})[0];
  return parameter.example ?? deref(first)?.value ?? parameter.schema?.examples?.[0];
}

/** Credentials of the right form for each security scheme (Prism checks their presence and form). */
const CREDENTIALS: Record<string, Record<string, string>> = {
  ApiKey: { Authorization: 'ApiKey sk_test_mock' },
  BearerJwt: { Authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJtb2NrIn0.c2ln' },
  OAuth2ClientCredentials: { Authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJtb2NrIn0.c2ln' },
  TenantId: { 'x-tenant-id': 'tenant_example' },
};

function credentialsFor(op: Node): Record<string, string> {
  const requirements: Node[] = op.security ?? document.security ?? [];
  const scheme = Object.keys(requirements[0] ?? {})[0];
  if (!scheme) return {};
  const headers = CREDENTIALS[scheme];
  if (!headers) throw new Error(`no mock credentials for security scheme ${scheme}`);
  return headers;
}

/** One request per operation, every value taken from the spec's examples. */
function exampleRequests(): ExampleRequest[] {
  return Object.entries<Node>(document.paths).flatMap(([path, rawItem]) => {
    const item = deref(rawItem)!;
    return METHODS.filter((m) => item[m]).map((method) => {
      const op: Node = item[method];
      const params: ExampleRequest['params'] = { path: {}, query: {} };
      for (const parameter of [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(p)!)) {
        if (parameter.in === 'path' || (parameter.in === 'query' && parameter.required)) {
          params[parameter.in as 'path' | 'query'][parameter.name] = exampleOf(parameter);
        }
      }
      // The JSON body when the operation takes one, else its first media type (a file upload), sent as that type.
      const content: Node = deref(op.requestBody)?.content ?? {};
      const [bodyType, json] = content['application/json'] ? ['application/json', content['application/json']] : (Object.entries<Node>(content)[0] ?? []);
      const raw = bodyType !== undefined && bodyType !== 'application/json';
      const firstExample = deref(Object.values<Node>(json?.examples ?? {})[0]);
      const success = Object.entries<Node>(op.responses).find(([status]) => status.startsWith('2'))?.[1];
      const successTypes = Object.keys(deref(success)?.content ?? {});
      return {
        name: `${op.operationId} (${method.toUpperCase()} ${path})`,
        method: method.toUpperCase(),
        path,
        params,
        ...(json ? { body: firstExample?.value ?? json.example } : {}),
        headers: { ...credentialsFor(op), ...(raw ? { 'Content-Type': bodyType! } : {}) },
        ...(raw ? { bodySerializer: (body: unknown) => body } : {}),
        parseAs: successTypes.some((t) => t.includes('json')) ? 'json' : 'text',
      };
    });
  });
}

/** openapi-fetch's `request`, loosened: these calls are built from the document at run time. */
type AnyRequest = (method: string, path: string, init: Omit<ExampleRequest, 'name' | 'method' | 'path'>) => ReturnType<PharmacyClient['GET']>;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

async function waitUntilAnswering(url: string, prism: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 50_000;
  while (Date.now() < deadline) {
    if (prism.exitCode !== null) throw new Error(`prism exited with ${prism.exitCode}:\n${output()}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((done) => setTimeout(done, 250));
    }
  }
  throw new Error(`prism did not answer within 50 s:\n${output()}`);
}

const requests = exampleRequests();
let prism: ChildProcess;
let client: PharmacyClient;
let baseUrl: string;

beforeAll(async () => {
  const port = await freePort();
  let output = '';
  prism = spawn(join(repoRoot, 'node_modules', '.bin', 'prism'), ['mock', openApiDocumentPath, '-p', String(port), '-h', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  prism.stdout!.on('data', (chunk) => (output += chunk));
  prism.stderr!.on('data', (chunk) => (output += chunk));
  baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(`${baseUrl}/v1/open-api/api.yml`, prism, () => output);
  // Each request carries the credentials its operation's security scheme asks for.
  client = createPharmacyClient({ baseUrl, middleware: [contractMiddleware()] });
}, 60_000);

afterAll(async () => {
  if (!prism || prism.exitCode !== null) return;
  const exited = once(prism, 'exit');
  prism.kill('SIGTERM');
  await exited;
});

describe('the Prism mock of the bundle', () => {
  it('has operations to call', () => {
    expect(requests.length).toBeGreaterThan(0);
  });

  it.each(requests.map((r) => [r.name, r] as const))('answers %s with 2xx for the spec examples', async (_name, request) => {
    const { method, path, name: _ignored, ...init } = request;
    const { response, data } = await (client.request as unknown as AnyRequest)(method, path, init);
    expect(response.headers.get('sl-violations'), 'Prism found the example request invalid').toBeNull();
    expect(response.status).toBeGreaterThanOrEqual(200);
    expect(response.status).toBeLessThan(300);
    if (response.status !== 204) expect(data).toBeDefined();
  });

  it('refuses a call without the API key, as documented', async () => {
    const anonymous = createPharmacyClient({ baseUrl, middleware: [contractMiddleware()] });
    const { response, error } = await anonymous.GET('/v1/patient/{patient_token}', { params: { path: { patient_token: 'p7Xk2mQ9rT4vW8yZ1aB3cD5e' } } });
    expect(response.status).toBe(401);
    expect(error).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Please Send a Valid Api-Key' });
  });
});
