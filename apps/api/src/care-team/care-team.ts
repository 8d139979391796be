import type { Environment } from '../auth/principal.js';

/**
 * The care team of one environment of the deployment (seed 4.7): the programs a tenant's
 * consults belong to, their questionnaires, and the providers who see patients, with the
 * states they are licensed in and when they work. Ids are 24 lower-case hex characters
 * (the real platform's Mongo ObjectIds). The sandbox starts with the shipped sample
 * (`apps/api/reference-data/care-team.json`); the operator imports production's.
 */
export interface CareTeam {
  programs: Program[];
  questionnaires: Questionnaire[];
  providers: Provider[];
}

export interface Program {
  id: string;
  name: string;
}

export interface Questionnaire {
  id: string;
  program_id: string;
  name: string;
  /** The length of an appointment, in minutes, when the schedule is asked without `duration`. */
  default_duration_minutes: number;
}

/** One working period of a weekday, in the provider's own time zone: `09:00` to `12:30`. */
export interface WorkingPeriod {
  /** 1 = Monday ... 7 = Sunday (ISO 8601). */
  weekday: number;
  start: string;
  end: string;
}

/** A day (or part of one) the provider does not work, in the provider's time zone. */
export interface ScheduleException {
  /** `YYYY-MM-DD`. */
  date: string;
  /** Both absent: the whole day off; both present: off from `start` to `end` that day. */
  start?: string;
  end?: string;
}

export interface Provider {
  id: string;
  first_name: string;
  last_name: string;
  title: string | null;
  npi: string;
  /** Two upper-case letters each. */
  licensed_states: string[];
  /** The programs whose consults the provider sees. */
  program_ids: string[];
  /** An IANA time zone: `America/Los_Angeles`. */
  time_zone: string;
  working_hours: WorkingPeriod[];
  exceptions: ScheduleException[];
}

/** Where an environment's care team came from, when. */
export interface CareTeamOrigin {
  environment: Environment;
  source: string;
  imported_at: string | null;
}
