/**
 * Reads the imports of one TypeScript file with the compiler's parser (no type checker:
 * whether an import is type-only is written in the source under verbatimModuleSyntax).
 */
import ts from 'typescript';

/** One import written in a file, before its specifier is resolved to a file. */
export interface WrittenImport {
  specifier: string;
  /** 1-based line of the statement or expression that imports. */
  line: number;
  /** What it brings in, as written: `Patient`, `type Owner`, `* as db`, `*`, `(side effects)`. */
  names: string[];
  /** Erased at compile time: `import type`, `export type`, all specifiers `type`, or an `import('…')` type. */
  typeOnly: boolean;
}

export function importsOf(path: string, text: string): WrittenImport[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: WrittenImport[] = [];
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node): void => {
    const written = readImport(node);
    if (written) found.push({ ...written, line: lineOf(node) });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

type Read = Omit<WrittenImport, 'line'> | undefined;

function readImport(node: ts.Node): Read {
  if (ts.isImportDeclaration(node)) return fromImportDeclaration(node);
  if (ts.isExportDeclaration(node)) return fromExportDeclaration(node);
  if (ts.isImportTypeNode(node)) return fromImportType(node);
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) return fromDynamicImport(node);
  if (ts.isImportEqualsDeclaration(node)) return fromImportEquals(node);
  return undefined;
}

const literal = (node: ts.Node | undefined) => (node && ts.isStringLiteralLike(node) ? node.text : undefined);

/** `import x, { a, type B } from`, `import type … from`, `import * as ns from`, `import '…'`. */
function fromImportDeclaration(node: ts.ImportDeclaration): Read {
  const specifier = literal(node.moduleSpecifier);
  if (specifier === undefined) return undefined;
  const clause = node.importClause;
  if (!clause) return { specifier, names: ['(side effects)'], typeOnly: false };
  const names: { name: string; isType: boolean }[] = [];
  if (clause.name) names.push({ name: clause.name.text, isType: clause.isTypeOnly });
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) names.push({ name: `* as ${bindings.name.text}`, isType: clause.isTypeOnly });
  if (bindings && ts.isNamedImports(bindings)) {
    for (const element of bindings.elements) {
      names.push({ name: (element.propertyName ?? element.name).text, isType: clause.isTypeOnly || element.isTypeOnly });
    }
  }
  return named(specifier, names, clause.isTypeOnly);
}

/** `export { a, type B } from`, `export type { … } from`, `export * from`, `export * as ns from`. */
function fromExportDeclaration(node: ts.ExportDeclaration): Read {
  const specifier = literal(node.moduleSpecifier);
  if (specifier === undefined) return undefined; // `export { a }` of local names
  const clause = node.exportClause;
  if (!clause) return { specifier, names: [node.isTypeOnly ? 'type *' : '*'], typeOnly: node.isTypeOnly };
  if (ts.isNamespaceExport(clause)) {
    return { specifier, names: [`${node.isTypeOnly ? 'type ' : ''}* as ${clause.name.text}`], typeOnly: node.isTypeOnly };
  }
  const names = clause.elements.map((element) => ({
    name: (element.propertyName ?? element.name).text,
    isType: node.isTypeOnly || element.isTypeOnly,
  }));
  return named(specifier, names, node.isTypeOnly);
}

/**
 * An import with a list of names is type-only when the statement says so or when every name
 * does: `import { type A, type B }` is erased too. An empty list (`import {} from`) is kept.
 */
function named(specifier: string, names: { name: string; isType: boolean }[], statementIsType: boolean): Read {
  const typeOnly = statementIsType || (names.length > 0 && names.every((each) => each.isType));
  return { specifier, names: names.map(({ name, isType }) => (isType ? `type ${name}` : name)), typeOnly };
}

/** `import('./x.js').Name` or `typeof import('./x.js')` in a type position. */
function fromImportType(node: ts.ImportTypeNode): Read {
  const argument = node.argument;
  const specifier = ts.isLiteralTypeNode(argument) ? literal(argument.literal) : undefined;
  if (specifier === undefined) return undefined;
  const name = node.qualifier ? node.qualifier.getText() : node.isTypeOf ? 'typeof import' : 'import';
  return { specifier, names: [`type ${name}`], typeOnly: true };
}

/** `await import('./x.js')`; names the destructured bindings when there are some. */
function fromDynamicImport(node: ts.CallExpression): Read {
  const specifier = literal(node.arguments[0]);
  if (specifier === undefined) return undefined;
  const awaited = ts.isAwaitExpression(node.parent) ? node.parent : node;
  const declaration = awaited.parent;
  const bound =
    ts.isVariableDeclaration(declaration) && ts.isObjectBindingPattern(declaration.name)
      ? declaration.name.elements.map((element) => (element.propertyName ?? element.name).getText())
      : [];
  return { specifier, names: bound.length > 0 ? bound : ['import()'], typeOnly: false };
}

/** `import x = require('./x.js')` (CommonJS style; kept for completeness). */
function fromImportEquals(node: ts.ImportEqualsDeclaration): Read {
  const reference = node.moduleReference;
  if (!ts.isExternalModuleReference(reference)) return undefined;
  const specifier = literal(reference.expression);
  if (specifier === undefined) return undefined;
  return { specifier, names: [node.isTypeOnly ? `type ${node.name.text}` : node.name.text], typeOnly: node.isTypeOnly };
}
