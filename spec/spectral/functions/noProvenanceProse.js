// The rendered reference speaks to integrators: a `description` or `summary` says what the
// API does, never where a shape came from or who chose it. Provenance lives only in the
// `x-source: real` and `x-designed: true` markers and in `x-design-notes` (which Redoc does
// not render), and in spec/README.md. Each entry is a phrase, not a word, so that API prose
// ("designed to be retried", a `source` field) stays allowed. A space in a pattern matches
// any run of white space, line breaks of folded prose included.
const PHRASES = [
  ['our design', /\bour designs?\b/i],
  [
    'our <choice>',
    /\bour (additions?|bounds?|choices?|extensions?|form|limits?|messages?|own|reading|rules?|wording)\b/i,
  ],
  ['our `field`', /\bour `/i],
  ['ours', /\bours\b/i],
  ['we designed', /\bwe (add|added|chose|choose|design|designed|keep|take|use)\b/i],
  ['designed', /\bdesigned\b(?!\s+(to|for)\b)/i],
  ['this project', /\bthis project\b/i],
  ['the source', /\bthe source\b|\bsource's\b/i],
  ['the seed', /\bthe seed\b|\bseed's\b/i],
  ['real platform', /\breal platform\b/i],
  ['real interface', /\breal interface\b/i],
  ['x-designed / x-source', /\bx-(designed|source)\b/i],
].map(([name, pattern]) => [name, new RegExp(pattern.source.replaceAll(' ', '\\s+'), pattern.flags)]);

/** True when the string is example data (an Example Object's `value`, `example`, a schema's `examples` array), not prose. */
function inExampleData(path) {
  return path.some(
    (segment, i) =>
      segment === 'example' ||
      (segment === 'value' && path[i - 2] === 'examples') ||
      (typeof segment === 'number' && path[i - 1] === 'examples'),
  );
}

export default function noProvenanceProse(text, _options, context) {
  if (typeof text !== 'string' || inExampleData(context.path)) return [];
  const results = [];
  for (const [name, pattern] of PHRASES) {
    const match = pattern.exec(text);
    if (!match) continue;
    results.push({
      message: `"${match[0].replace(/\s+/g, ' ')}" (${name}): say what the API does; provenance belongs in x-source, x-designed or x-design-notes.`,
      path: context.path,
    });
  }
  return results;
}
