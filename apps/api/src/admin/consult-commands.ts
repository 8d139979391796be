import { ENVIRONMENTS, type Environment } from '../auth/principal.js';
import type { Provider } from '../care-team/care-team.js';
import type { Decision } from '../consults/consult-lifecycle.js';
import type { Services } from '../services.js';
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
  // The care teams are read before the command's transaction: the embedded database has one connection.
  const candidates = values.provider === undefined ? null : await providersNamed(services, values.provider);
  return staffAction(services, { operation: `consult ${action}`, recordIds: [id] }, async (uow) => {
    let provider;
    if (candidates) {
      const { environment } = await services.consultLifecycle.find(uow, id);
      provider = candidates[environment];
      if (!provider) throw new CliError(`no provider ${values.provider} in the ${environment} care team`, 2);
    }
    return services.consultLifecycle.decide(uow, id, decision, { ...(values.notes !== undefined ? { notes: values.notes } : {}), ...(provider ? { provider } : {}) });
  });
};

/** The provider of this id in the care team of each environment. */
async function providersNamed(services: Services, providerId: string): Promise<Partial<Record<Environment, Provider>>> {
  const found = await Promise.all(
    ENVIRONMENTS.map(async (environment) => [environment, (await services.careTeams.index(environment)).careTeam.providers.find((p) => p.id === providerId.toLowerCase())] as const),
  );
  return Object.fromEntries(found.filter(([, provider]) => provider));
}
