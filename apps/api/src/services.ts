import { readFileSync } from 'node:fs';
import { openApiDocumentPath } from '@pharmacy/contract';
import { ApiKeyAuthenticator } from './auth/api-keys.js';
import { CustomerRepository } from './customers/customer-repository.js';
import { CustomerService } from './customers/customer-service.js';
import type { Db } from './db/database.js';
import { PatientRepository } from './patients/patient-repository.js';
import { PatientService } from './patients/patient-service.js';
import { PrescriptionRepository } from './prescriptions/prescription-repository.js';
import { PrescriptionService } from './prescriptions/prescription-service.js';

/** Every service the handlers use, built once per app over one database. */
export interface Services {
  apiKeys: ApiKeyAuthenticator;
  customers: CustomerService;
  patients: PatientService;
  prescriptions: PrescriptionService;
  /** The bundled OpenAPI document, as served at /v1/open-api/api.yml. */
  openApiDocument: string;
}

export function createServices(db: Db): Services {
  const customerRepository = new CustomerRepository(db);
  const patients = new PatientService(new PatientRepository(db));
  return {
    apiKeys: new ApiKeyAuthenticator(customerRepository),
    customers: new CustomerService(customerRepository),
    patients,
    prescriptions: new PrescriptionService(new PrescriptionRepository(db), patients),
    openApiDocument: readFileSync(openApiDocumentPath, 'utf8'),
  };
}
