import { readFileSync } from 'node:fs';
import { ENVIRONMENTS, type Environment } from '../auth/principal.js';
import { InvalidCareTeamError } from '../care-team/care-team-rules.js';
import type { CareTeams } from '../care-team/care-team-service.js';
import { CliError, parseAction, required, type Command } from './command.js';

export const CARE_TEAM_USAGE = [
  '       pnpm admin care-team import --environment sandbox|production --file <care-team.json>',
  '       pnpm admin care-team show --environment sandbox|production',
];

/**
 * `care-team import`: replaces the environment's care team (programs, questionnaires,
 * providers with their licences and hours) with the file's `CareTeam` JSON document and
 * prints what it holds (`{environment, programs, questionnaires, providers}`, counts);
 * running servers see it within seconds. A file that breaks a rule exits 2 with each
 * problem on stderr, and nothing is stored.
 *
 * `care-team show`: the environment's care team in short, and where it came from.
 */
export const careTeam: Command = (services, rest) => runCareTeam(services.careTeams, rest);

export async function runCareTeam(careTeams: CareTeams, rest: string[]): Promise<unknown> {
  const { action, values } = parseAction(rest, ['import', 'show'], ['environment', 'file']);
  if (!ENVIRONMENTS.includes(values.environment as Environment)) throw new CliError('--environment must be sandbox or production', 2);
  const environment = values.environment as Environment;
  if (action === 'show') {
    if (values.file !== undefined) throw new CliError('--file is for import only', 2);
    return show(careTeams, environment);
  }
  const file = required(values, 'file');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`--file ${file} cannot be read: ${(error as Error).message}`, 2);
  }
  try {
    return { environment, ...(await careTeams.import(environment, text, file)) };
  } catch (error) {
    if (!(error instanceof InvalidCareTeamError)) throw error;
    throw new CliError(`${file} is not a valid care team; nothing was imported (${error.problems.length} problem(s)):\n${error.problems.join('\n')}`, 2);
  }
}

async function show(careTeams: CareTeams, environment: Environment) {
  const [origin, team] = await Promise.all([careTeams.origin(environment), careTeams.of(environment)]);
  const programNames = new Map(team.programs.map((p) => [p.id, p.name]));
  return {
    environment,
    source: origin.source,
    imported_at: origin.imported_at,
    programs: team.programs.map((p) => ({ id: p.id, name: p.name })),
    questionnaires: team.questionnaires.map((q) => ({ id: q.id, name: q.name, program: programNames.get(q.program_id), default_duration_minutes: q.default_duration_minutes })),
    providers: team.providers.map((p) => ({
      id: p.id,
      name: [p.first_name, p.last_name].join(' ') + (p.title ? `, ${p.title}` : ''),
      npi: p.npi,
      time_zone: p.time_zone,
      licensed_states: p.licensed_states,
      programs: p.program_ids.map((id) => programNames.get(id)),
    })),
  };
}
