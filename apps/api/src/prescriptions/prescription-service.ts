import type { Owner } from '../auth/principal.js';
import type { Db } from '../db/database.js';
import { isOwnedBy, visibleTo } from '../db/ownership.js';
import { notFound, notOwner } from '../errors.js';
import type { PatientService } from '../patients/patient-service.js';
import { daysSupplyOf, earliestRefill, nextFill, unfillableReason, type Fill } from './fillable.js';
import type { PrescriptionRepository, PrescriptionRow } from './prescription-repository.js';

const PRESCRIPTION_NOT_FOUND = 'Unable to find Prescription.';
const PRESCRIPTION_NOT_OWNED = 'Prescription does not belong to this customer.';

/** Attempts to record a fill when concurrent fills keep changing the prescription underneath. */
const FILL_ATTEMPTS = 5;

/** The fill recorded, or why the prescription could not be filled (null when it was not found any more). */
type FillOutcome = { filled: Fill } | { refused: string | null };

/** Prescriptions: reads, and the fills recorded on them. */
export class PrescriptionService {
  constructor(
    private readonly prescriptions: PrescriptionRepository,
    private readonly patients: PatientService,
  ) {}

  /** The prescriptions of a patient the caller owns (same refusals as reading the patient). */
  async listForPatient(owner: Owner, patientToken: string): Promise<PrescriptionRow[]> {
    const patient = await this.patients.get(owner, patientToken);
    return this.prescriptions.listForPatient(patient.token);
  }

  /**
   * The prescription with this token, if the caller may see it: another customer's is
   * refused as for patients (seed 7.5); the caller's own in the other environment does not
   * exist here.
   */
  async get(owner: Owner, token: string): Promise<PrescriptionRow> {
    return visibleTo(await this.prescriptions.findByToken(token), owner, {
      notFound: () => notFound(PRESCRIPTION_NOT_FOUND),
      otherCustomer: () => notOwner(PRESCRIPTION_NOT_OWNED),
    });
  }

  /** Why the prescription cannot be filled now (words for a validation message), or null when it can. */
  unfillableReason(rx: PrescriptionRow, now: Date): string | null {
    return unfillableReason(rx, now);
  }

  /** The earliest instant a refill is allowed (its last fill plus its days supply, less `tolerance` of it), or null when nothing limits it. */
  earliestRefill(rx: PrescriptionRow, tolerance: number): Date | null {
    return earliestRefill(rx, tolerance);
  }

  /** The days supply of one fill (30 when the prescription does not say). */
  daysSupply(rx: PrescriptionRow): number {
    return daysSupplyOf(rx);
  }

  /**
   * The prescriptions a request names, checked for this owner and patient: each must be
   * the owner's (`does not exist`), the patient's (`does not belong to this patient`) and
   * fillable now (`is not fillable: it ...`). Answers them by token (the valid ones) and the
   * problems, each under `keyOf(index)`.
   */
  async checkFillable(owner: Owner, patientToken: string, tokens: readonly string[], now: Date, keyOf: (index: number) => string): Promise<{ byToken: Map<string, PrescriptionRow>; errors: { key: string; message: string }[] }> {
    const found = await this.prescriptions.findMany(tokens);
    const byToken = new Map<string, PrescriptionRow>();
    const errors: { key: string; message: string }[] = [];
    tokens.forEach((token, i) => {
      const rx = found.find((r) => r.token === token);
      const key = keyOf(i);
      if (!rx || !isOwnedBy(rx, owner)) errors.push({ key, message: 'does not exist' });
      else if (rx.patient_token !== patientToken) errors.push({ key, message: 'does not belong to this patient' });
      else {
        const reason = unfillableReason(rx, now);
        if (reason) errors.push({ key, message: `is not fillable: it ${reason}` });
        else byToken.set(token, rx);
      }
    });
    return { byToken, errors };
  }

  /** Prescriptions by token, in any customer's records: the caller checks what it may use. */
  findMany(tokens: readonly string[], trx?: Db): Promise<PrescriptionRow[]> {
    return this.prescriptions.findMany(tokens, trx);
  }

  /**
   * Records the next fill of a prescription with a conditional update; when a concurrent
   * fill changed it since it was read, reads it again, its row locked (`lockForFill`), and
   * retries, and refuses it once it is no longer fillable (so two fills of the last refill
   * never both succeed, and a prescription many fill at once is not refused for being busy).
   */
  async fill(trx: Db, seen: PrescriptionRow, now: Date): Promise<FillOutcome> {
    let rx: PrescriptionRow | undefined = seen;
    for (let attempt = 0; attempt < FILL_ATTEMPTS && rx; attempt++) {
      const fill = nextFill(rx, now);
      if (!fill) break;
      if (await this.prescriptions.applyFill(rx, fill, trx)) return { filled: fill };
      rx = await this.prescriptions.lockForFill(seen.token, trx);
    }
    return { refused: rx ? unfillableReason(rx, now) : null };
  }
}
