import type { PrescriptionInput } from '../prescriptions/prescription-intake.js';

/** What `POST /v1/sandbox/electronic_prescriptions` prescribes when a field is omitted (as its schema's defaults say). */
export const SANDBOX_PRESCRIPTION_DEFAULTS = {
  medication_name: 'Atorvastatin 20 mg tablet',
  medication_sig: 'Take 1 tablet by mouth once daily',
  quantity: 30,
  days_supply: 30,
  refills: 2,
  prescribed_ndc: '00071015523',
  prescriber: 'Dr. Sandbox Prescriber',
  dea_schedule: 0,
} satisfies PrescriptionInput;
