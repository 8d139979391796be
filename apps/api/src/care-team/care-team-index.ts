import type { CareTeam, Program, Provider, Questionnaire } from './care-team.js';

/**
 * A checked care team with its lookups. Ids are matched case-insensitively (the care team
 * holds them in lower case). The care team is frozen: it is shared by every caller until
 * the next import.
 */
export class CareTeamIndex {
  private readonly programs: ReadonlyMap<string, Program>;
  private readonly questionnaires: ReadonlyMap<string, Questionnaire>;
  private readonly providersByProgram = new Map<string, Provider[]>();

  constructor(readonly careTeam: CareTeam) {
    deepFreeze(careTeam);
    this.programs = new Map(careTeam.programs.map((program) => [program.id, program]));
    this.questionnaires = new Map(careTeam.questionnaires.map((questionnaire) => [questionnaire.id, questionnaire]));
    for (const provider of careTeam.providers) {
      for (const programId of provider.program_ids) this.providersByProgram.set(programId, [...(this.providersByProgram.get(programId) ?? []), provider]);
    }
  }

  program(id: string): Program | undefined {
    return this.programs.get(id.toLowerCase());
  }

  questionnaire(id: string): Questionnaire | undefined {
    return this.questionnaires.get(id.toLowerCase());
  }

  /** The states where a provider of the program is licensed, sorted (the schedule's `state` values with providers). */
  licensedStates(programId: string): string[] {
    const states = new Set((this.providersByProgram.get(programId.toLowerCase()) ?? []).flatMap((provider) => provider.licensed_states));
    return [...states].sort();
  }

  /**
   * The providers who see the questionnaire's consults (its program's) and are licensed in
   * the state, in the care team's order; none for an unknown questionnaire.
   */
  providersFor(questionnaireId: string, state: string): Provider[] {
    const questionnaire = this.questionnaire(questionnaireId);
    if (!questionnaire) return [];
    const wanted = state.toUpperCase();
    return (this.providersByProgram.get(questionnaire.program_id) ?? []).filter((provider) => provider.licensed_states.includes(wanted));
  }
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
}
