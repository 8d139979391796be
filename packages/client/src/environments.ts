/** The servers of the spec, shared by the API-key client and the platform client. */

export type PharmacyEnvironment = 'local' | 'sandbox' | 'production';

/** The spec's servers (with the empty `alias`). */
export const environmentBaseUrls: Record<PharmacyEnvironment, string> = {
  local: 'http://localhost:3000',
  sandbox: 'https://sandbox.pharmacy.example.com',
  production: 'https://api.pharmacy.example.com',
};

/** Where requests go: one of the spec's servers by name, or any base URL (not both). */
export type ServerChoice = { baseUrl: string; environment?: never } | { environment: PharmacyEnvironment; baseUrl?: never };

/** The base URL of a choice; `caller` names the factory in the error of an unknown environment. */
export function baseUrlOf(choice: ServerChoice, caller: string): string {
  const baseUrl = choice.baseUrl ?? environmentBaseUrls[choice.environment!];
  if (!baseUrl) throw new Error(`${caller}: unknown environment ${String(choice.environment)}`);
  return baseUrl;
}
