// A deprecated operation says when it was deprecated and when it goes (spec/VERSIONING.md):
// `x-deprecated-at` and `x-sunset`, calendar dates (YYYY-MM-DD), the sunset after the
// deprecation. The service sends them as its Deprecation and Sunset headers; the dates
// without `deprecated: true` would send nothing, so they are refused too.
const DATE = /^(\d{4}-\d{2}-\d{2})(T00:00:00(\.0+)?Z)?$/;

function calendarDate(value) {
  const text = value instanceof Date ? value.toISOString() : value;
  if (typeof text !== 'string') return undefined;
  const day = DATE.exec(text)?.[1];
  if (!day) return undefined;
  const parsed = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day ? undefined : day;
}

export default function deprecatedOperationHasDates(operation, _options, context) {
  if (operation === null || typeof operation !== 'object') return [];
  const at = operation['x-deprecated-at'];
  const sunset = operation['x-sunset'];
  if (operation.deprecated !== true) {
    if (at === undefined && sunset === undefined) return [];
    return [{ message: '`x-deprecated-at` and `x-sunset` belong to a deprecated operation: add `deprecated: true` or remove them.', path: context.path }];
  }
  const problems = [];
  const day = calendarDate(at);
  const end = calendarDate(sunset);
  if (!day) problems.push({ message: 'A deprecated operation needs `x-deprecated-at`, the date it was deprecated (YYYY-MM-DD).', path: [...context.path, 'x-deprecated-at'] });
  if (!end) problems.push({ message: 'A deprecated operation needs `x-sunset`, the date it stops being served (YYYY-MM-DD).', path: [...context.path, 'x-sunset'] });
  if (day && end && end <= day) problems.push({ message: '`x-sunset` must come after `x-deprecated-at`.', path: [...context.path, 'x-sunset'] });
  return problems;
}
