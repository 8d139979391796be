/** The servers of the spec, shared by the API-key client and the platform client. */

export type PharmacyEnvironment = 'local' | 'sandbox' | 'production';

/** The spec's servers (with the empty `alias`). */
export const environmentBaseUrls: Record<PharmacyEnvironment, string> = {
  local: 'http://localhost:3000',
  sandbox: 'https://sandbox.pharmacy.example.com',
  production: 'https://api.pharmacy.example.com',
};

/**
 * Where requests go: any base URL, or one of the spec's servers by name, not both. With
 * neither, `local`: the self-hosted service as `pnpm start` runs it. The service is
 * self-hosted, so that is the one server that exists wherever this client is installed;
 * `sandbox` and `production` are the spec's names for a hosted deployment (on a self-hosted
 * one, the API key, not the URL, selects sandbox or production records).
 */
export type ServerChoice = { baseUrl: string; environment?: never } | { environment?: PharmacyEnvironment; baseUrl?: never };

/** The base URL of a choice; `caller` names the factory in the error of an unknown environment. */
export function baseUrlOf(choice: ServerChoice, caller: string): string {
  const baseUrl = choice.baseUrl ?? environmentBaseUrls[choice.environment ?? 'local'];
  if (!baseUrl) throw new Error(`${caller}: unknown environment ${String(choice.environment)}`);
  return baseUrl;
}
