import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order files start in (vitest.config.ts). The packaging test first: most of its minute is
 * pnpm pack and npm install, waiting rather than computing, so it runs beside the others rather
 * than after them. Then the browser tests, then each database's files together. Within a
 * project, vitest's own order (slowest known first).
 */
const rank = (project: string) => ({ packaging: 0, browser: 1, postgres: 2, sqlite: 3 })[project] ?? 4;

export class ProjectsInTurn extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((file, index) => ({ file, index }))
      .sort((a, b) => rank(a.file.project.name) - rank(b.file.project.name) || a.index - b.index)
      .map(({ file }) => file);
  }
}
