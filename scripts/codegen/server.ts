import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { OperationInfo } from './operations.js';
import { apiGeneratedDir, apiHandlersDir, GENERATED_HEADER } from './paths.js';

/** An operation's handler: `handlers/<area>/<operationId>.ts`, the area being its `x-area` (or its tag's). */
function handlerFile(op: OperationInfo): string {
  return join(apiHandlersDir, op.area, `${op.operationId}.ts`);
}

function importPath(fromDir: string, file: string): string {
  const rel = relative(fromDir, file).replace(/\\/g, '/').replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** The `Handlers` interface: one method per operationId, typed from the contract. */
function renderHandlers(ops: OperationInfo[]): string {
  const methods = ops.map(
    (op) => `  /** ${op.method} ${op.path}: ${op.summary} */
  ${op.operationId}(input: OperationInput<operations['${op.operationId}']>, ctx: RequestContext): Promise<OperationOutput<operations['${op.operationId}']>>;`,
  );
  return `${GENERATED_HEADER}
import type { operations } from '@pharmacy/contract';
import type { OperationInput, OperationOutput, RequestContext } from '../http/operation-types.js';

export type OperationId = ${ops.map((op) => `'${op.operationId}'`).join(' | ')};

export interface Handlers {
${methods.join('\n')}
}
`;
}

/** The route table: method, path, operationId, security and the schemas of each operation (parameters by place, body, responses). */
function renderRoutes(ops: OperationInfo[]): string {
  const routes = ops.map((op) => {
    const pick = (where: string) => {
      const params = op.parameters.filter((p) => p.in === where);
      if (params.length === 0) return undefined;
      return {
        type: 'object',
        properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
        required: params.filter((p) => p.required).map((p) => p.name),
      };
    };
    return {
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      security: op.security,
      params: pick('path'),
      query: pick('query'),
      headers: pick('header'),
      body: op.body,
      responses: Object.fromEntries(
        op.responses.map((r) => [r.status, { contentType: r.contentType ?? null, schema: r.schema ?? null }]),
      ),
      audit: op.audit,
      errorShape: op.errorShape,
      deprecation: op.deprecation,
    };
  });
  return `${GENERATED_HEADER}
import type { RouteDefinition } from '../http/route-definition.js';
import type { OperationId } from './handlers.js';

export const routes: readonly RouteDefinition<OperationId>[] = ${JSON.stringify(routes, null, 2)};
`;
}

/** The scopes a client may be granted: those the spec's OAuth 2.0 security schemes declare. */
function renderScopes(scopes: string[]): string {
  return `${GENERATED_HEADER}
/** Every scope the spec's OAuth 2.0 security schemes declare (\`flows.*.scopes\`): what a client may be granted. */
export const scopes: readonly string[] = ${JSON.stringify(scopes)};
`;
}

/** Wires every handler file into one object; a missing handler is a compile error. */
function renderHandlerIndex(ops: OperationInfo[]): string {
  const imports = ops.map((op) => `import { ${op.operationId} } from '${importPath(apiGeneratedDir, handlerFile(op))}';`);
  return `${GENERATED_HEADER}
import type { Handlers } from './handlers.js';
${imports.join('\n')}

export const handlers: Handlers = {
${ops.map((op) => `  ${op.operationId},`).join('\n')}
};
`;
}

function renderStub(op: OperationInfo): string {
  const file = handlerFile(op);
  return `import { notImplemented } from '${importPath(dirname(file), join(apiGeneratedDir, '..', 'errors.ts'))}';
import type { Handlers } from '${importPath(dirname(file), join(apiGeneratedDir, 'handlers.ts'))}';

/** ${op.method} ${op.path}: ${op.summary}. Scaffolded by \`pnpm generate\`; replace the body. */
export const ${op.operationId}: Handlers['${op.operationId}'] = async () => {
  throw notImplemented('${op.operationId}');
};
`;
}

export function generateServer(ops: OperationInfo[], scopes: string[]): string[] {
  mkdirSync(apiGeneratedDir, { recursive: true });
  writeFileSync(join(apiGeneratedDir, 'handlers.ts'), renderHandlers(ops));
  writeFileSync(join(apiGeneratedDir, 'routes.ts'), renderRoutes(ops));
  writeFileSync(join(apiGeneratedDir, 'scopes.ts'), renderScopes(scopes));
  writeFileSync(join(apiGeneratedDir, 'handler-index.ts'), renderHandlerIndex(ops));
  const scaffolded: string[] = [];
  for (const op of ops) {
    const file = handlerFile(op);
    if (existsSync(file)) continue;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, renderStub(op));
    scaffolded.push(file);
  }
  return scaffolded;
}
