/** `$ref`s within the bundle: the OpenAPI document as parsed YAML. */
export type Doc = Record<string, any>;

/** The node a local `$ref` (`#/components/schemas/Token`) points at; fails on one that points nowhere. */
export function resolvePointer(doc: Doc, ref: string): any {
  const target = ref
    .replace(/^#\//, '')
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((acc, key) => acc?.[key], doc);
  if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
  return target;
}

/** Follows `$ref`s until a node that is not one (parameters, bodies, responses). */
export function resolveObject(doc: Doc, node: any): any {
  while (node && typeof node.$ref === 'string') node = resolvePointer(doc, node.$ref);
  return node;
}
