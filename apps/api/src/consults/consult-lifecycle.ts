import type { Provider } from '../care-team/care-team.js';
import { ownerOfRow } from '../db/ownership.js';
import { existing, LifecycleError } from '../errors.js';
import type { UnitOfWork } from '../events/unit-of-work.js';
import { nowIso, recordObjectId } from '../tokens.js';
import { consultEvent, consultTaskEvent } from './consult-events.js';
import type { ConsultRepository } from './consult-repository.js';
import type { ConsultsTable, ConsultStatus } from './consult-tables.js';

/** A provider's decision on a consult. */
export type Decision = 'completed' | 'issue' | 'rejected' | 'issueCompleted' | 'issueRejected';

/** Which status each decision follows (the real platform's flow). */
const FOLLOWS: Record<Decision, readonly ConsultStatus[]> = {
  completed: ['REVIEW'],
  issue: ['REVIEW'],
  rejected: ['REVIEW'],
  issueCompleted: ['issue'],
  issueRejected: ['issue'],
};

/** The statuses a consult may be canceled from: no provider has decided it. */
const CANCELABLE: readonly ConsultStatus[] = ['REVIEW', 'issue'];

/** A provider as a consult keeps it. */
export function providerSnapshot(provider: Provider): Pick<ConsultsTable, 'provider_id' | 'provider' | 'provider_name'> {
  return {
    provider_id: provider.id,
    provider: JSON.stringify({ npi: provider.npi, first_name: provider.first_name, last_name: provider.last_name, title: provider.title }),
    provider_name: `${provider.first_name} ${provider.last_name}`,
  };
}

/**
 * What providers decide on a consult (the real platform's statuses): `REVIEW` to
 * `completed`, `issue` (a task opens for the patient) or `rejected`; `issue` to
 * `issueCompleted` or `issueRejected` (the task closes). Each decision changes the consult
 * and records its `CONSULT` event (and `CONSULT_TASK`) in the caller's unit of work. The
 * operator's admin commands, the sandbox's simulated provider and its `simulate`
 * operation drive it.
 */
export class ConsultLifecycle {
  constructor(private readonly consults: ConsultRepository) {}

  async find(uow: UnitOfWork, id: string): Promise<ConsultsTable> {
    return existing(await this.consults.find(id.toLowerCase(), uow.trx), `Consult ${id}`);
  }

  /** Records a decision; `provider` (who decided) is kept when the consult had none. */
  async decide(uow: UnitOfWork, id: string, decision: Decision, options: { notes?: string; provider?: Provider } = {}) {
    const consult = await this.find(uow, id);
    const from = FOLLOWS[decision];
    const refused = () => new LifecycleError('NOT_PENDING', `A consult in ${consult.status} cannot become ${decision}.`);
    if (!from.includes(consult.status)) throw refused();
    const now = nowIso();
    const final = decision !== 'issue';
    const changes: Partial<ConsultsTable> = {
      status: decision,
      updated_at: now,
      ...(final ? { completed_at: now } : {}),
      ...(options.notes !== undefined ? { notes_to_patient: options.notes } : {}),
      ...(!consult.provider_id && options.provider ? providerSnapshot(options.provider) : {}),
    };
    if (!(await this.consults.advance(uow.trx, consult.id, [consult.status], changes))) throw refused();
    const next = { ...consult, ...changes };
    const owner = ownerOfRow(consult);
    await uow.emit(owner, consultEvent(next));
    if (decision === 'issue') {
      const task = { id: recordObjectId(), consult_id: consult.id, task_type: 'patient_follow_up', status: 'open' as const, created_at: now, updated_at: now };
      await this.consults.insertTask(uow.trx, task);
      await uow.emit(owner, consultTaskEvent(task));
    } else if (consult.status === 'issue') {
      for (const task of await this.consults.closeTasks(uow.trx, consult.id, 'completed', now)) {
        await uow.emit(owner, consultTaskEvent({ ...task, status: 'completed', updated_at: now }));
      }
    }
    return { consult: { id: next.id, status: next.status, from: consult.status, updated_at: now } };
  }

  /**
   * Cancels a consult no provider has decided (`REVIEW` or `issue`): its appointment's
   * slot is free again and its open task canceled, each change with its event.
   */
  async cancel(uow: UnitOfWork, consult: ConsultsTable): Promise<void> {
    const now = nowIso();
    if (!(await this.consults.advance(uow.trx, consult.id, CANCELABLE, { status: 'canceled', updated_at: now }))) {
      throw new LifecycleError('NOT_PENDING', `A consult in ${consult.status} cannot be canceled.`);
    }
    const owner = ownerOfRow(consult);
    await this.consults.freeAppointment(uow.trx, consult.id, now);
    await uow.emit(owner, consultEvent({ ...consult, status: 'canceled' }));
    for (const task of await this.consults.closeTasks(uow.trx, consult.id, 'canceled', now)) {
      await uow.emit(owner, consultTaskEvent({ ...task, status: 'canceled', updated_at: now }));
    }
  }
}
