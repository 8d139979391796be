import type { NewEvent } from '../events/event-outbox.js';
import type { ConsultsTable, ConsultTasksTable } from './consult-tables.js';

const MESSAGES: Record<ConsultsTable['status'], string> = {
  REVIEW: 'The consult is waiting for a provider.',
  completed: 'The provider completed the consult.',
  issue: 'The provider needs something from the patient.',
  rejected: 'The provider rejected the consult.',
  issueCompleted: 'The issue was resolved and the consult completed.',
  issueRejected: 'The issue was not resolved; the consult was rejected.',
  canceled: 'The consult was canceled.',
};

/** `CONSULT`: the consult's new status (a notify event: ids and tokens only, as the spec's `ConsultEvent`). */
export function consultEvent(consult: Pick<ConsultsTable, 'id' | 'patient_token' | 'status'>): NewEvent {
  return { callbackType: 'CONSULT', details: { consult_id: consult.id, patient_token: consult.patient_token, status: consult.status, message: MESSAGES[consult.status] } };
}

/** `CONSULT_TASK`: a task of the consult opened or changed status (the spec's `ConsultTaskEvent`). */
export function consultTaskEvent(task: ConsultTasksTable): NewEvent {
  const message = task.status === 'open' ? 'The patient has a task to complete for the consult.' : `The task is ${task.status}.`;
  return { callbackType: 'CONSULT_TASK', details: { consult_id: task.consult_id, task_id: task.id, task_type: task.task_type, status: task.status, message } };
}
