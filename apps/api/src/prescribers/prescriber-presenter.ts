import type { components } from '@pharmacy/contract';
import type { PrescriberRow } from './prescriber-repository.js';

/** The prescriber record of `GET /v1/prescriber/{prescriber_token}`. */
export function presentPrescriber(p: PrescriberRow): components['schemas']['Prescriber'] {
  return {
    prescriber_token: p.token,
    first_name: p.first_name,
    last_name: p.last_name,
    npi: p.npi,
    dea_number: p.dea_number,
    address: {
      name: p.address_name,
      company: p.address_company,
      street1: p.address_street1,
      street2: p.address_street2,
      city: p.address_city,
      state: p.address_state,
      zip: p.address_zip,
      country: p.address_country,
      phone: p.address_phone,
      email: p.address_email,
    },
    phone: p.phone,
    fax: p.fax,
    created_at: p.created_at,
  };
}
