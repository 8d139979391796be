import type { PrescriptionInput } from '../../prescriptions/prescription-intake.js';
import type { TransferLifecycle, TransferOutcome } from '../../transfers/transfer-lifecycle.js';
import { SANDBOX_PRESCRIPTION_DEFAULTS } from '../sandbox-prescriptions.js';
import type { SandboxScript } from '../sandbox-script.js';
import { transferTrigger } from '../sandbox-triggers.js';
import { nowMs } from '../../clock.js';

/** The medication reported for a transfer request of every medication. */
const ALL_MEDICATIONS_EXAMPLE = 'Lisinopril 10 mg tablet';

/** The prescription the simulated transferring pharmacy reports for a requested medication. */
function transferredPrescription(medicationName: string): PrescriptionInput & { refills_filled: number } {
  return {
    ...SANDBOX_PRESCRIPTION_DEFAULTS,
    medication_name: medicationName,
    refills: 3,
    refills_filled: 1,
    prescriber_npi: '1234567893',
    written_date: new Date(nowMs() - 60 * 86_400_000).toISOString(),
    last_filled_date: new Date(nowMs() - 30 * 86_400_000).toISOString(),
  };
}

/**
 * A transfer request: the other party is contacted (`TRANSFER_CONTACT`), then every
 * requested medication is transferred (`NOTIFY_RX` each, `TRANSFER` success), unless a
 * `simulation` (or a deprecated marker) forces a rejection or a failed contact (`TRANSFER` error).
 */
export function transferScript(transfers: TransferLifecycle): SandboxScript {
  return async (uow, token, index, simulation) => {
    const { transfer, medications } = await transfers.find(uow, token);
    const trigger = transferTrigger(simulation, transfer.notes, transfer.metadata);
    if (index === 0) {
      const method = transfer.pharmacy_fax || transfer.prescriber_fax ? 'fax' : 'phone';
      await transfers.contact(uow, token, {
        contact_method: method,
        ...(trigger.kind === 'contact_error' ? { failure: 'TRANSFER_CONTACT_INFO_INCORRECT' as const } : {}),
      });
      return 'next';
    }
    if (trigger.kind === 'contact_error') {
      await transfers.reject(uow, token, 'TRANSFER_CONTACT_INFO_INCORRECT');
    } else if (trigger.kind === 'reject') {
      const specifics = trigger.code === 'TRANSFER_OTHER_REASON' ? 'Sandbox: rejected on request (sandbox:reject).' : undefined;
      await transfers.reject(uow, token, trigger.code, specifics);
    } else {
      const pending = medications.filter((m) => m.status === 'pending');
      const outcomes: TransferOutcome[] = pending.length
        ? pending.map((m) => ({ transfer_medication_token: m.token, prescription: transferredPrescription(m.medication_name) }))
        : [{ medication_name: ALL_MEDICATIONS_EXAMPLE, prescription: transferredPrescription(ALL_MEDICATIONS_EXAMPLE) }];
      await transfers.complete(uow, token, outcomes);
    }
    return 'done';
  };
}
