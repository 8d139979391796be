import type { SandboxSimulation } from '../events/sandbox-simulation.js';
import type { LifecycleSubject, UnitOfWork } from '../events/unit-of-work.js';

/** What a step answers: more steps follow, or the lifecycle is over. */
export type StepOutcome = 'next' | 'done';

/**
 * One subject's script: performs step `index` (0 first) of the lifecycle of the record
 * `token` through its area's lifecycle, in the step's unit of work. A script holds the
 * sandbox's choices (what the other party answers, the forced outcomes: the create's
 * `simulation`, else the deprecated markers in its free text), never the rules.
 */
export type SandboxScript = (uow: UnitOfWork, token: string, index: number, simulation: SandboxSimulation | undefined) => Promise<StepOutcome>;

/** The script of every subject the simulated pharmacy carries. */
export type SandboxScripts = Record<LifecycleSubject, SandboxScript>;
