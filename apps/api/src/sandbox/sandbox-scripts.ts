import type { ConsultLifecycle } from '../consults/consult-lifecycle.js';
import type { DiagnosticLifecycle } from '../diagnostics/diagnostic-lifecycle.js';
import type { DirectTransferLifecycle } from '../direct-transfers/direct-transfer-lifecycle.js';
import type { FillLifecycle } from '../fill-requests/fill-lifecycle.js';
import type { SameDayDeliveryLifecycle } from '../same-day-delivery/same-day-delivery-lifecycle.js';
import type { TransferLifecycle } from '../transfers/transfer-lifecycle.js';
import type { SandboxScripts } from './sandbox-script.js';
import { consultScript } from './scripts/consult.js';
import { diagnosticOrderScript } from './scripts/diagnostic-order.js';
import { directTransferScript } from './scripts/direct-transfer.js';
import { fillRequestScript } from './scripts/fill-request.js';
import { sameDayDeliveryScript } from './scripts/same-day-delivery.js';
import { transferScript } from './scripts/transfer.js';

/** The lifecycles the scripts drive. */
export interface ScriptedLifecycles {
  transfers: TransferLifecycle;
  directTransfers: DirectTransferLifecycle;
  fills: FillLifecycle;
  lab: DiagnosticLifecycle;
  consults: ConsultLifecycle;
  sameDay: SameDayDeliveryLifecycle;
}

/** The table of scripts, one file each in scripts/: a new lifecycle adds its row here. */
export function sandboxScripts(lifecycles: ScriptedLifecycles): SandboxScripts {
  return {
    transfer: transferScript(lifecycles.transfers),
    direct_transfer: directTransferScript(lifecycles.directTransfers),
    fill_request: fillRequestScript(lifecycles.fills),
    diagnostic_order: diagnosticOrderScript(lifecycles.lab),
    consult: consultScript(lifecycles.consults),
    same_day_delivery: sameDayDeliveryScript(lifecycles.sameDay),
  };
}
