// A schema with a `pattern` says in words what it expects (`x-expected`), so that a value
// that does not match is refused with "must be <x-expected>" rather than with the regular
// expression (apps/api/src/http/request-validation.ts).
export default function patternHasExpected(schema, _options, context) {
  if (!schema || typeof schema !== 'object' || typeof schema.pattern !== 'string') return [];
  const expected = schema['x-expected'];
  if (typeof expected === 'string' && expected.trim() !== '') return [];
  return [{ message: `A schema with a pattern (${schema.pattern}) needs \`x-expected\`: the form it expects, in words ("10 digits", "a date as YYYYMMDD").`, path: context.path }];
}
