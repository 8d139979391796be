// Every operation belongs to at least one tag, so the docs can group it.
export default function operationHasTag(operation, _options, context) {
  const { tags } = operation;
  if (Array.isArray(tags) && tags.length > 0) return [];
  return [{ message: 'Operation must have at least one tag.', path: context.path }];
}
