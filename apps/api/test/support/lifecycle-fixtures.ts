/** Request bodies of the lifecycles the pharmacy's operations and the sandbox's simulator carry out. */

/** This pharmacy, as the test apps configure it (direct transfers must name it). */
export const thisPharmacy = { name: 'Platform Pharmacy', id_number: '0598765', pharmacist: 'Morgan Reyes' };

export const pharmacyEnv = {
  PHARMACY_NAME: thisPharmacy.name,
  PHARMACY_ID_NUMBER: thisPharmacy.id_number,
  PHARMACY_PHARMACIST: thisPharmacy.pharmacist,
};

export function directTransferBody(patient: string, prescription: Record<string, unknown> = {}) {
  return {
    patient_token: patient,
    prescriber: {
      first_name: 'Alex',
      last_name: 'Smith',
      npi: '1234567893',
      address: { name: 'Dr. Alex Smith', company: 'Bayview Family Medicine', street1: '500 Howard St', city: 'San Francisco', state: 'CA', zip: '94105' },
    },
    transfer_from: {
      name: 'Customer Pharmacy',
      id_number: '0512345',
      pharmacist: 'Pat Lee',
      address: { name: 'Customer Pharmacy', company: 'Customer Health Inc.', street1: '20 Mission St', city: 'San Francisco', state: 'CA', zip: '94103' },
    },
    transfer_to: thisPharmacy,
    prescription: {
      medication_name: 'Atorvastatin 20 mg tablet',
      prescribed_ndc: '00071015523',
      days_supply: 30,
      quantity_written: '30',
      quantity_dispensed: '30',
      medication_sig: 'Take 1 tablet by mouth daily',
      refills_left: 4,
      refills_transferred: 4,
      number: 'RX-778812',
      direct_transfer_url: 'https://files.customer.example.com/rx/778812.pdf',
      can_substitute: true,
      written_date: '20251103',
      ...prescription,
    },
  };
}

export function transferBody(patient: string, medications: string[] | undefined, extra: Record<string, unknown> = {}) {
  return {
    patient_token: patient,
    pharmacy_name: 'Main Street Pharmacy',
    pharmacy_phone: '5125550100',
    pharmacy_fax: '5125550101',
    ...(medications ? { medications } : {}),
    metadata: 'order-10045',
    ...extra,
  };
}
