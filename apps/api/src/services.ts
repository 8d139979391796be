import { readFileSync } from 'node:fs';
import type { Config } from './config.js';
import { CopayRequestService } from './copay-requests/copay-request-service.js';
import { SimpleTransactor, type Transactor } from './db/transactor.js';
import { DirectTransferService } from './direct-transfers/direct-transfer-service.js';
import { FillRequestService } from './fill-requests/fill-request-service.js';
import { InsuranceService } from './insurances/insurance-service.js';
import { OrderService } from './orders/order-service.js';
import { PrescriberService } from './prescribers/prescriber-service.js';
import { EventOutbox } from './events/event-outbox.js';
import { ReadCache } from './read-cache.js';
import type { ServiceDeps } from './service-deps.js';
import { TransferService } from './transfers/transfer-service.js';
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
  transfers: TransferService;
  directTransfers: DirectTransferService;
  prescribers: PrescriberService;
  fillRequests: FillRequestService;
  orders: OrderService;
  insurances: InsuranceService;
  copayRequests: CopayRequestService;
  /** The bundled OpenAPI document, as served at /v1/open-api/api.yml. */
  openApiDocument: string;
}

export function createServices(db: Db, config: Config, transactor: Transactor = new SimpleTransactor(db)): Services {
  const customerRepository = new CustomerRepository(db);
  const patients = new PatientService(new PatientRepository(db), transactor, new ReadCache(config.readCacheTtlMs));
  const deps: ServiceDeps = { db, transactor, config, patients, outbox: new EventOutbox() };
  return {
    apiKeys: new ApiKeyAuthenticator(customerRepository),
    customers: new CustomerService(customerRepository),
    patients,
    prescriptions: new PrescriptionService(new PrescriptionRepository(db), patients),
    transfers: new TransferService(deps),
    directTransfers: new DirectTransferService(deps),
    prescribers: new PrescriberService(deps),
    fillRequests: new FillRequestService(deps),
    orders: new OrderService(deps),
    insurances: new InsuranceService(deps),
    copayRequests: new CopayRequestService(deps),
    openApiDocument: readFileSync(openApiDocumentPath, 'utf8'),
  };
}
