import type { Decision } from '../consults/consult-lifecycle.js';
import { CliError, parseAction, required, staffAction, type Command } from './command.js';

export const CONSULT_USAGE = ['       pnpm admin consult complete|issue|reject|resolve-issue|reject-issue --consult <id> [--notes <text>] [--provider <provider id>]'];

const DECISIONS: Record<string, Decision> = {
  complete: 'completed',
  issue: 'issue',
  reject: 'rejected',
  'resolve-issue': 'issueCompleted',
  'reject-issue': 'issueRejected',
};

/**
 * `consult <action>`: a provider's decision on a consult (consults/consult-lifecycle.ts),
 * with its `CONSULT` (and `CONSULT_TASK`) events; `--provider` names the provider who
 * decided, kept when the consult had none (a provider of the care team of its environment).
 */
export const consult: Command = async (services, rest) => {
  const { action, values } = parseAction(rest, Object.keys(DECISIONS), ['consult', 'notes', 'provider']);
  const id = required(values, 'consult');
  const decision = DECISIONS[action]!;
  return staffAction(services, { operation: `consult ${action}`, recordIds: [id] }, async (uow) => {
    let provider;
    if (values.provider !== undefined) {
      const found = await services.consultLifecycle.find(uow, id);
      provider = (await services.careTeams.index(found.environment)).careTeam.providers.find((p) => p.id === values.provider!.toLowerCase());
      if (!provider) throw new CliError(`no provider ${values.provider} in the ${found.environment} care team`, 2);
    }
    return services.consultLifecycle.decide(uow, id, decision, { ...(values.notes !== undefined ? { notes: values.notes } : {}), ...(provider ? { provider } : {}) });
  });
};
