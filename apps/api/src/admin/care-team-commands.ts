import type { CareTeam } from '../care-team/care-team.js';
import type { CareTeams } from '../care-team/care-team-service.js';
import type { Command } from './command.js';
import { runDocumentCommand } from './document-commands.js';

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

export function runCareTeam(careTeams: CareTeams, rest: string[]): Promise<unknown> {
  return runDocumentCommand(careTeams, rest, { noun: 'care team', summary });
}

/** The care team in short. */
function summary(team: CareTeam) {
  const programNames = new Map(team.programs.map((p) => [p.id, p.name]));
  return {
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
