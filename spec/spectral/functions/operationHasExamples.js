// Every request body media type and every 2xx response media type carries an example
// (`examples` with at least one named example, or `example`), so docs and the mock have one.
function hasExample(media) {
  if (media === null || typeof media !== 'object') return false;
  const { examples, example } = media;
  if (examples !== null && typeof examples === 'object' && Object.keys(examples).length > 0) return true;
  return example !== undefined;
}

export default function operationHasExamples(operation, _options, context) {
  const results = [];
  for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
    if (!hasExample(media)) {
      results.push({
        message: `Request body "${type}" must have examples.`,
        path: [...context.path, 'requestBody', 'content', type],
      });
    }
  }
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (!/^2/.test(status)) continue;
    for (const [type, media] of Object.entries(response?.content ?? {})) {
      if (!hasExample(media)) {
        results.push({
          message: `Response ${status} "${type}" must have examples.`,
          path: [...context.path, 'responses', status, 'content', type],
        });
      }
    }
  }
  return results;
}
