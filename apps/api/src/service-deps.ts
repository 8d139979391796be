import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { Transactor } from './db/transactor.js';
import type { EventOutbox } from './events/event-outbox.js';
import type { PatientService } from './patients/patient-service.js';
import type { SandboxScheduler } from './sandbox/sandbox-scheduler.js';

/** What every area service is built from. */
export interface ServiceDeps {
  db: Db;
  transactor: Transactor;
  config: Config;
  patients: PatientService;
  /** Records events in the unit of work of the state change they report. */
  outbox: EventOutbox;
  /**
   * Schedules the sandbox's simulated pharmacy for a new sandbox request, in the request's
   * unit of work (does nothing for production records; absent, nothing is scheduled).
   */
  sandbox?: SandboxScheduler;
}
