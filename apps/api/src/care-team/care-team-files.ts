import { extname } from 'node:path';
import { checkCareTeam, type CareTeamCheck } from './care-team-rules.js';

/** The largest care team file read (characters): far above 500 providers with a year of exceptions each. */
export const MAX_CARE_TEAM_FILE_CHARS = 20_000_000;

/**
 * A care team from a file's text: a `.json` file holding the `CareTeam` document
 * (`reference-data/care-team.json` is one), checked by `care-team-rules.ts`; answers the
 * care team or every problem found.
 */
export function readCareTeamFile(text: string, fileName: string): CareTeamCheck {
  if (extname(fileName).toLowerCase() !== '.json') {
    return { problems: [{ where: fileName, message: 'must be a .json file (the CareTeam document)' }] };
  }
  if (text.length > MAX_CARE_TEAM_FILE_CHARS) {
    return { problems: [{ where: fileName, message: `is larger than ${MAX_CARE_TEAM_FILE_CHARS} characters` }] };
  }
  let document: unknown;
  try {
    document = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { problems: [{ where: 'JSON', message: `cannot be parsed: ${(error as Error).message}` }] };
  }
  return checkCareTeam(document);
}
