/** The transfer request stories' request body and their two calls: requesting a transfer, reading it back. */
import type { TestApp } from './test-app.js';

/** A transfer from another pharmacy, of two medications, with the caller's reference and notes. */
export const fromPharmacy = {
  pharmacy_name: 'Corner Drug Store',
  pharmacy_phone: '4155550142',
  pharmacy_fax: '4155550143',
  medications: ['Atorvastatin 20 mg tablet', 'Lisinopril 10 mg tablet'],
  metadata: 'customer-transfer-0042',
  notes: 'Patient prefers generics.',
};

/** The calls of the transfer request stories, on the app `app` answers once the file's beforeAll has started it. */
export function transferRequestSteps(app: () => TestApp) {
  return {
    async requestTransfer(key: string, body: Record<string, unknown>) {
      return app().client(key).POST('/v1/transfer_request', { body: body as never });
    },

    getTransfer(key: string, token: string, options?: { alias?: boolean }) {
      return app().client(key, options).GET('/v1/transfer_request/{token}', { params: { path: { token } } });
    },
  };
}
