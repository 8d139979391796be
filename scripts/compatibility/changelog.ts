/**
 * The breaking changes CHANGELOG.md allows (spec/VERSIONING.md): the ids, in backticks, of
 * the bullets of the `### Breaking` subsection of `## [Unreleased]`. Only that section counts:
 * the changes since the last release are the unreleased ones. HTML comments are not read.
 */
const ID = /^(GET|PUT|POST|DELETE|PATCH|OPTIONS|HEAD|TRACE|ANY|WEBHOOK) \S/;

export function listedBreakingChanges(changelog: string): Set<string> {
  const listed = new Set<string>();
  let unreleased = false;
  let breaking = false;
  // An HTML comment (a template, an example) lists nothing.
  const text = changelog.replace(/<!--[\s\S]*?-->/g, '');
  for (const line of text.split(/\r?\n/)) {
    if (/^## /.test(line)) {
      unreleased = /^## \[Unreleased\]/i.test(line);
      breaking = false;
      continue;
    }
    if (/^### /.test(line)) {
      breaking = unreleased && /^### Breaking\s*$/i.test(line);
      continue;
    }
    if (!breaking) continue;
    for (const [, span] of line.matchAll(/`([^`]+)`/g)) if (span && ID.test(span.trim())) listed.add(span.trim());
  }
  return listed;
}
