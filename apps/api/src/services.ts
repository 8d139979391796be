import { readFileSync } from 'node:fs';
import type { Config } from './config.js';
import { CopayRequestService } from './copay-requests/copay-request-service.js';
import { SimpleTransactor, type Transactor } from './db/transactor.js';
import { DirectTransferService } from './direct-transfers/direct-transfer-service.js';
import { FillRequestService } from './fill-requests/fill-request-service.js';
import { InsuranceService } from './insurances/insurance-service.js';
import { OrderService } from './orders/order-service.js';
import { PrescriberService } from './prescribers/prescriber-service.js';
import { EventFeedService } from './events/event-feed-service.js';
import { WebhookDeliveryService } from './events/webhook-delivery.js';
import { CountingOutbox, NotifyingTransactor } from './events/webhook-notify.js';
import { LazySecretBox } from './webhook-endpoints/secret-box.js';
import { WebhookEndpointService } from './webhook-endpoints/webhook-endpoint-service.js';
import { PharmacyOperations } from './operations/pharmacy-operations.js';
import { ReadCache } from './read-cache.js';
import { SandboxScheduler } from './sandbox/sandbox-scheduler.js';
import { SandboxSimulator } from './sandbox/sandbox-simulator.js';
import type { ServiceDeps } from './service-deps.js';
import { TransferService } from './transfers/transfer-service.js';
import { openApiDocumentPath } from '@pharmacy/contract';
import { ApiKeyAuthenticator } from './customers/api-keys.js';
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
  /** The event feed (`GET /v1/webhook_events`). */
  eventFeed: EventFeedService;
  /** Webhook endpoints (`/v1/webhook_endpoint`). */
  webhookEndpoints: WebhookEndpointService;
  /** Delivers recorded events (run by the webhook delivery worker). */
  webhookDelivery: WebhookDeliveryService;
  /** What pharmacy staff do (admin CLI; the sandbox's simulator). */
  operations: PharmacyOperations;
  /** The sandbox's simulated pharmacy (run by its worker). */
  sandboxSimulator: SandboxSimulator;
  /** The bundled OpenAPI document, as served at /v1/open-api/api.yml. */
  openApiDocument: string;
}

export function createServices(db: Db, config: Config, baseTransactor: Transactor = new SimpleTransactor(db)): Services {
  const webhookEndpoints = new WebhookEndpointService(db, baseTransactor, new LazySecretBox(config), config.webhooks);
  const webhookDelivery = new WebhookDeliveryService(db, baseTransactor, webhookEndpoints, config.webhooks);
  // Units of work that record events wake the delivery worker once they commit.
  const outbox = new CountingOutbox();
  const transactor = new NotifyingTransactor(baseTransactor, outbox, () => webhookDelivery.notify());
  const customerRepository = new CustomerRepository(db);
  const patients = new PatientService(new PatientRepository(db), transactor, new ReadCache(config.readCacheTtlMs));
  const deps: ServiceDeps = { db, transactor, config, patients, outbox, sandbox: new SandboxScheduler(config.sandboxStepDelayMs) };
  const orders = new OrderService(deps);
  const operations = new PharmacyOperations(deps, orders);
  return {
    apiKeys: new ApiKeyAuthenticator(customerRepository),
    customers: new CustomerService(customerRepository),
    patients,
    prescriptions: new PrescriptionService(new PrescriptionRepository(db), patients),
    transfers: new TransferService(deps),
    directTransfers: new DirectTransferService(deps),
    prescribers: new PrescriberService(deps),
    fillRequests: new FillRequestService(deps),
    orders,
    insurances: new InsuranceService(deps),
    copayRequests: new CopayRequestService(deps),
    eventFeed: new EventFeedService(deps),
    webhookEndpoints,
    webhookDelivery,
    operations,
    sandboxSimulator: new SandboxSimulator(db, transactor, operations, config.sandboxStepDelayMs),
    openApiDocument: readFileSync(openApiDocumentPath, 'utf8'),
  };
}
