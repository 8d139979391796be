// Every 4xx/5xx response is a $ref to a shared error response: a file under
// components/responses/ in the split sources, `#/components/responses/...` in the bundle.
//
// The rule runs on the resolved document and asks Spectral's document inventory where each
// response is really defined (following $refs across files). `resolved: false` is not enough
// here: in the sources the unresolved root only holds `$ref`s to the path files.
const SHARED_FILE = /[/\\]components[/\\]responses[/\\][^/\\]+\.ya?ml$/;

function isShared(item) {
  if (item === null || item === undefined) return false;
  const [section, kind, name, ...rest] = item.path;
  if (section === 'components' && kind === 'responses' && name !== undefined && rest.length === 0) return true;
  return item.path.length === 0 && SHARED_FILE.test(String(item.document.source ?? ''));
}

export default function errorResponseIsShared(operation, _options, context) {
  const results = [];
  for (const status of Object.keys(operation.responses ?? {})) {
    if (!/^[45]/.test(status)) continue;
    const path = [...context.path, 'responses', status];
    const home = context.documentInventory.findAssociatedItemForPath(path, true);
    if (!isShared(home)) {
      results.push({
        message: `Response ${status} must be a $ref to a shared error response (components/responses/).`,
        path,
      });
    }
  }
  return results;
}
