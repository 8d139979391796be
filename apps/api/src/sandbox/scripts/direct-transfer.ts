import type { components } from '@pharmacy/contract';
import type { DirectTransferLifecycle } from '../../direct-transfers/direct-transfer-lifecycle.js';
import type { SandboxScript } from '../sandbox-script.js';
import { directTransferRejected } from '../sandbox-triggers.js';

type Schemas = components['schemas'];

/** A direct transfer: accepted (`NOTIFY_RX`, `DIRECT_TRANSFER` success), or rejected as the create's `simulation` (or a deprecated marker) asks (`DIRECT_TRANSFER` error). */
export function directTransferScript(directTransfers: DirectTransferLifecycle): SandboxScript {
  return async (uow, token, _index, simulation) => {
    const dt = await directTransfers.find(uow, token);
    const rx = JSON.parse(dt.prescription) as Schemas['DirectTransferPrescription'];
    if (directTransferRejected(simulation, rx.number, rx.medication_sig)) {
      await directTransfers.reject(uow, token, 'the prescription has no refills left to transfer');
    } else {
      await directTransfers.accept(uow, token);
    }
    return 'done';
  };
}
