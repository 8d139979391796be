import type { SqlCondition } from './events/event-outbox.js';
import { readFileSync } from 'node:fs';
import { openApiDocumentPath } from '@pharmacy/contract';
import type { FastifyBaseLogger } from 'fastify';
import { AccessTokens } from './access-tokens/access-tokens.js';
import { AccountRepository } from './accounts/account-repository.js';
import { accountSealedColumns } from './accounts/account-sealed-fields.js';
import { AccountService } from './accounts/account-service.js';
import { TokenExchange } from './access-tokens/token-exchange.js';
import { AutoRefillRepository } from './auto-refill/auto-refill-repository.js';
import { AutoRefills } from './auto-refill/auto-refill-service.js';
import { useClockOffsetFile } from './clock.js';
import { AuditRepository } from './audit/audit-repository.js';
import { AuditTrail } from './audit/audit-trail.js';
import type { Config } from './config.js';
import { CareTeamRepository } from './care-team/care-team-repository.js';
import { CareTeams } from './care-team/care-team-service.js';
import { ConsultLifecycle } from './consults/consult-lifecycle.js';
import { ConsultRepository } from './consults/consult-repository.js';
import { ConsultService } from './consults/consult-service.js';
import { CopayRequestRepository } from './copay-requests/copay-request-repository.js';
import { CopayRequestService } from './copay-requests/copay-request-service.js';
import { CoverageRepository } from './coverage/coverage-repository.js';
import { CoverageService } from './coverage/coverage-service.js';
import { Reencryption } from './crypto/reencryption.js';
import { SecretBox } from './crypto/secret-box.js';
import { loadSigningKeys, type SigningKeys } from './crypto/signing-keys.js';
import { loadMediaSigningKey } from './crypto/media-signing-key.js';
import { MediaAddresses } from './media/media-addresses.js';
import { MediaRepository } from './media/media-repository.js';
import { MediaService } from './media/media-service.js';
import { LocalMediaStore } from './media/media-store.js';
import { S3MediaStore } from './media/s3-media-store.js';
import { ApiKeyAuthenticator } from './customers/api-keys.js';
import { CustomerRepository } from './customers/customer-repository.js';
import { CustomerService } from './customers/customer-service.js';
import { OAuthClients } from './customers/oauth-clients.js';
import { Tenants } from './customers/tenants.js';
import type { DatabaseHandle } from './db/database.js';
import { JobClaims } from './db/job-claims.js';
import { transactorFor } from './db/transactor.js';
import { CatalogueRepository } from './diagnostics/catalogue-repository.js';
import { DiagnosticCatalogues } from './diagnostics/catalogue-service.js';
import { DiagnosticLifecycle } from './diagnostics/diagnostic-lifecycle.js';
import { DiagnosticOrderRepository } from './diagnostics/diagnostic-order-repository.js';
import { DiagnosticOrderService } from './diagnostics/diagnostic-order-service.js';
import { diagnosticOrderSealedColumns } from './diagnostics/diagnostic-sealed-fields.js';
import { DirectTransferLifecycle } from './direct-transfers/direct-transfer-lifecycle.js';
import { DirectTransferRepository } from './direct-transfers/direct-transfer-repository.js';
import { DirectTransferService } from './direct-transfers/direct-transfer-service.js';
import { UnitsOfWork } from './events/unit-of-work.js';
import { FillCancellation } from './fill-requests/fill-cancellation.js';
import { FillCancellationRepository } from './fill-requests/fill-cancellation-repository.js';
import { FillLifecycle } from './fill-requests/fill-lifecycle.js';
import { FillRequestRepository } from './fill-requests/fill-request-repository.js';
import { FillRequestService } from './fill-requests/fill-request-service.js';
import { HeldFills } from './fill-requests/held-fills.js';
import { ScheduledActionRepository } from './scheduled-fills/scheduled-action-repository.js';
import { ScheduledActions } from './scheduled-fills/scheduled-actions.js';
import { Scheduler } from './scheduled-fills/scheduler.js';
import { scopes } from './generated/scopes.js';
import { OrderRepository } from './fill-requests/order-repository.js';
import { OrderService } from './fill-requests/order-service.js';
import { IdempotencyRepository } from './idempotency/idempotency-repository.js';
import { IdempotencyService } from './idempotency/idempotency-service.js';
import { idempotencyKeySealedColumns } from './idempotency/idempotency-tables.js';
import { InsuranceRepository } from './insurances/insurance-repository.js';
import { InsuranceService } from './insurances/insurance-service.js';
import { PatientRepository } from './patients/patient-repository.js';
import { LocationLookups } from './pharmacy-locations/location-lookups.js';
import { PharmacyLocations } from './pharmacy-locations/pharmacy-location-service.js';
import { ReferenceDataRepository } from './pharmacy-locations/reference-data-repository.js';
import { patientSealedColumns } from './patients/patient-sealed-fields.js';
import { PatientService } from './patients/patient-service.js';
import { PrescriberRepository } from './prescribers/prescriber-repository.js';
import { PrescriberService } from './prescribers/prescriber-service.js';
import { PrescriptionIntake } from './prescriptions/prescription-intake.js';
import { PrescriptionRepository } from './prescriptions/prescription-repository.js';
import { PrescriptionService } from './prescriptions/prescription-service.js';
import { ReadCache } from './read-cache.js';
import { SameDayDeliveryLifecycle } from './same-day-delivery/same-day-delivery-lifecycle.js';
import { SameDayDeliveryRepository } from './same-day-delivery/same-day-delivery-repository.js';
import { SameDayDeliveryService } from './same-day-delivery/same-day-delivery-service.js';
import { SandboxPrescriber } from './sandbox/sandbox-prescriber.js';
import { SandboxScheduler } from './sandbox/sandbox-scheduler.js';
import { sandboxScripts } from './sandbox/sandbox-scripts.js';
import { SandboxSimulator } from './sandbox/sandbox-simulator.js';
import { TransferLifecycle } from './transfers/transfer-lifecycle.js';
import { TransferRepository } from './transfers/transfer-repository.js';
import { TransferService } from './transfers/transfer-service.js';
import { DashboardSessionRepository } from './dashboard/dashboard-session-repository.js';
import { DashboardSessions } from './dashboard/dashboard-sessions.js';
import { DeliveryAttemptRepository } from './webhook-deliveries/delivery-attempt-repository.js';
import { DeliveryAttempts } from './webhook-deliveries/delivery-attempts.js';
import { DeliveryOutcomes } from './webhook-deliveries/delivery-outcomes.js';
import { WebhookDeliveryRepository } from './webhook-deliveries/webhook-delivery-repository.js';
import { WebhookDeliveryService } from './webhook-deliveries/webhook-delivery-service.js';
import { WebhookRedeliveryService } from './webhook-deliveries/webhook-redelivery-service.js';
import { WebhookEndpointHealth } from './webhook-endpoints/endpoint-health.js';
import { WebhookTestEvents } from './webhook-endpoints/test-events.js';
import { InterfaceDocument } from './docs/interface-document.js';
import { AddressPolicy } from './webhook-endpoints/url-policy.js';
import { WebhookEndpointRepository } from './webhook-endpoints/webhook-endpoint-repository.js';
import { WebhookEndpointService } from './webhook-endpoints/webhook-endpoint-service.js';
import { webhookEndpointSealedColumns } from './webhook-endpoints/webhook-endpoint-tables.js';
import { WebhookEventRepository } from './webhook-events/webhook-event-repository.js';
import { WebhookEventService } from './webhook-events/webhook-event-service.js';

/** Every service of the app, built once over one database: what handlers, admin commands and workers use. */
export interface Services {
  /** Opens units of work: a state change and its events commit together (admin commands run staff actions in them). */
  units: UnitsOfWork;
  /** Who read or wrote which patient records, when (the API's `x-phi` operations and staff actions). */
  audit: AuditTrail;
  /** `Idempotency-Key`s: reserved, answered once, replayed for 24 hours. */
  idempotency: IdempotencyService;
  apiKeys: ApiKeyAuthenticator;
  customers: CustomerService;
  /** Customers' OAuth 2.0 machine clients (made and revoked by the operator). */
  oauthClients: OAuthClients;
  /** Customers by tenant id (`x-tenant-id`). */
  tenants: Tenants;
  /** Bearer tokens: issued, verified, and the keys that verify them (`/.well-known/jwks.json`). */
  accessTokens: AccessTokens;
  /** The client credentials grant (`POST /oauth/token`). */
  tokenExchange: TokenExchange;
  /** Tenants' user accounts and their consents (the accounts interface). */
  accounts: AccountService;
  /** The care team of each environment: programs, questionnaires, providers and their hours (imported by the operator). */
  careTeams: CareTeams;
  /** Consults and the schedule they book. */
  consults: ConsultService;
  /** What providers decide on consults (the operator and the sandbox's simulated provider). */
  consultLifecycle: ConsultLifecycle;
  /** The catalogue of lab tests, panels and kits of each environment (imported by the operator). */
  diagnosticCatalogues: DiagnosticCatalogues;
  /** At-home lab orders: made, read, listed, their results and rejections. */
  diagnosticOrders: DiagnosticOrderService;
  /** What happens to a lab order: shipments, the lab's access, results, rejection (the operator and the sandbox's lab). */
  diagnosticLifecycle: DiagnosticLifecycle;
  patients: PatientService;
  prescriptions: PrescriptionService;
  /** Prescriptions received (electronic, transferred, directly transferred), each with its NOTIFY_RX. */
  prescriptionIntake: PrescriptionIntake;
  transfers: TransferService;
  transferLifecycle: TransferLifecycle;
  directTransfers: DirectTransferService;
  directTransferLifecycle: DirectTransferLifecycle;
  prescribers: PrescriberService;
  fillRequests: FillRequestService;
  /** Fill requests held as too soon: their schedules (`/scheduled-fill-requests`) and their submission when due. */
  heldFills: HeldFills;
  /** Every scheduled action of a customer (`/scheduled-actions`). */
  scheduledActions: ScheduledActions;
  /** Auto-refill subscriptions and the refills they submit. */
  autoRefills: AutoRefills;
  /** Performs due scheduled actions (run by its worker). */
  scheduler: Scheduler;
  /** Dispense, triage, refuse, ship: what staff and the sandbox do with a submitted fill request. */
  fillLifecycle: FillLifecycle;
  /** Cancels fill requests before they are dispensed, whole or item by item (`POST /v1/cancel_request`). */
  fillCancellation: FillCancellation;
  orders: OrderService;
  /** Same-day delivery orders: made, read, listed. */
  sameDayDeliveries: SameDayDeliveryService;
  /** What the courier does with a same-day order: booked, collected, delivered, failed, canceled (staff and the sandbox's courier). */
  sameDayLifecycle: SameDayDeliveryLifecycle;
  insurances: InsuranceService;
  copayRequests: CopayRequestService;
  /** The event feed (`GET /v1/webhook_events`). */
  webhookEvents: WebhookEventService;
  /** Webhook endpoints (`/v1/webhook_endpoint`). */
  webhookEndpoints: WebhookEndpointService;
  /** Delivers recorded events (run by the webhook delivery worker). */
  webhookDelivery: WebhookDeliveryService;
  /** Delivers events again on request (`/v1/webhook_events/.../redeliver`). */
  webhookRedelivery: WebhookRedeliveryService;
  /** Every delivery attempt of an event (the dashboard shows them), kept for a while. */
  deliveryAttempts: DeliveryAttempts;
  /** The customer dashboard's sign-in sessions. */
  dashboardSessions: DashboardSessions;
  /** The sandbox's simulated pharmacy (run by its worker). */
  sandboxSimulator: SandboxSimulator;
  /** The sandbox's simulated prescriber (`POST /v1/sandbox/electronic_prescriptions`). */
  sandboxPrescriber: SandboxPrescriber;
  /** Seals every stored sealed value again under the current key (`pnpm admin reencrypt`). */
  reencryption: Reencryption;
  /** The pharmacy reference data (locations, licensed states, plan networks, inventory, ZIP centroids); the PharmacyLocationDirectory other areas resolve locations with. */
  pharmacyLocations: PharmacyLocations;
  /** Lookups over the reference data: external locations, nearby same-day locations, availability by NDC. */
  locationLookups: LocationLookups;
  /** Pharmacy coverage lookups (`GET /v1/pharmacy-coverage`), enabled per customer by the operator. */
  coverage: CoverageService;
  /** The bundled OpenAPI document, as served at /v1/open-api/api.yml. */
  openApiDocument: InterfaceDocument;
  /** Media files: created, uploaded and read through signed addresses, checked on upload. */
  media: MediaService;
}

/** The composition root: every service with what it depends on, passed explicitly. */
export function createServices(database: DatabaseHandle, config: Config, log?: FastifyBaseLogger): Services {
  const { db } = database;
  // Tests and demos may run the clock ahead (CLOCK_OFFSET_FILE); production leaves it unset.
  if (config.clockOffsetFile) useClockOffsetFile(config.clockOffsetFile);
  const transactor = transactorFor(database);
  const jobs = new JobClaims(db, transactor, database.dialect);
  // One box seals every field stored encrypted; the tables that hold them are re-encrypted together.
  const secrets = SecretBox.fromConfig(config);
  const sealedTables = [patientSealedColumns, webhookEndpointSealedColumns, idempotencyKeySealedColumns, accountSealedColumns, diagnosticOrderSealedColumns];

  // The special-purpose address ranges are read at start: a bad file stops the process.
  const addresses = AddressPolicy.load(config.webhooks.specialRangesFile);
  const scheduler = new SandboxScheduler(config.sandboxStepDelayMs);
  const units = new UnitsOfWork(transactor, {
    // Sandbox records start the simulated pharmacy's schedule; delivery judges each event as it is
    // recorded (no enabled endpoint: failed at once), and committed events to attempt wake it.
    starting: (uow, owner, subject, token, simulation) => scheduler.firstStep(uow, owner, subject, token, simulation),
    attempting: (owner): SqlCondition | undefined => webhookDelivery.attemptingCondition(owner),
    committed: () => webhookDelivery.notify(),
  });
  const endpointRepository = new WebhookEndpointRepository(db);
  const openApiDocument = new InterfaceDocument(readFileSync(openApiDocumentPath, 'utf8'));
  const webhookEndpoints = new WebhookEndpointService(endpointRepository, units, secrets, config.webhooks, addresses, new WebhookTestEvents(() => openApiDocument.text));
  const deliveryRepository = new WebhookDeliveryRepository(db);
  const attemptRepository = new DeliveryAttemptRepository(db);
  const deliveryOutcomes = new DeliveryOutcomes(deliveryRepository, transactor, new WebhookEndpointHealth(endpointRepository, config.webhooks), attemptRepository, log);
  const webhookDelivery = new WebhookDeliveryService(jobs, deliveryOutcomes, webhookEndpoints, config.webhooks, log);

  const customerRepository = new CustomerRepository(db);
  const apiKeys = new ApiKeyAuthenticator(customerRepository);
  const oauthClients = new OAuthClients(customerRepository, scopes);
  // The signing keys are loaded on first use, as the secrets key is: a process that issues
  // and verifies no token never needs one (on PostgreSQL, TOKEN_SIGNING_KEY).
  let signingKeys: SigningKeys | undefined;
  const accessTokens = new AccessTokens(() => (signingKeys ??= loadSigningKeys(config)), oauthClients, config.oauth);
  const patients = new PatientService(new PatientRepository(db), transactor, secrets, new ReadCache(config.readCacheTtlMs));
  const prescriptionRepository = new PrescriptionRepository(db);
  const prescriptions = new PrescriptionService(prescriptionRepository, patients);
  const prescriptionIntake = new PrescriptionIntake(prescriptionRepository, patients, config.pharmacy);
  const prescribers = new PrescriberService(new PrescriberRepository(db));
  const insurances = new InsuranceService(new InsuranceRepository(db));
  const copayRequests = new CopayRequestService(new CopayRequestRepository(db));

  const transferRepository = new TransferRepository(db);
  const transferLifecycle = new TransferLifecycle(transferRepository, prescriptionIntake);
  const directTransferRepository = new DirectTransferRepository(db);
  const directTransferLifecycle = new DirectTransferLifecycle(directTransferRepository, prescriptionIntake);
  const fillRequestRepository = new FillRequestRepository(db);
  const orderRepository = new OrderRepository(db);
  const scheduledActionRepository = new ScheduledActionRepository(db);
  const scheduledActions = new ScheduledActions(scheduledActionRepository);
  const fillRequests = new FillRequestService(fillRequestRepository, units, patients, prescriptions, insurances, copayRequests, scheduledActions, config.refills.earlyRefillTolerance);
  const heldFills = new HeldFills(fillRequests, fillRequestRepository, scheduledActionRepository, units);
  const autoRefills = new AutoRefills(new AutoRefillRepository(db), scheduledActionRepository, scheduledActions, fillRequests, prescriptions, patients, units, config.refills.earlyRefillTolerance);
  // Consent to auto-refill on a fill request's medication subscribes its prescription, in the request's unit of work.
  fillRequests.onAccepted((uow, owner, row, submitted) => autoRefills.enrolByConsent(uow, owner, row, submitted));
  const fillCancellation = new FillCancellation(fillRequestRepository, new FillCancellationRepository(), units);
  // A held request canceled through POST /v1/cancel_request takes its scheduled action with it.
  fillCancellation.onCanceled((uow, request, at) => heldFills.requestCanceled(uow, request, at));
  const refillScheduler = new Scheduler(jobs, { FILL_REQUEST: (action) => heldFills.submitDue(action), AUTO_REFILL: (action) => autoRefills.performCycle(action) }, config.refills, log);
  const fillLifecycle = new FillLifecycle(fillRequestRepository, orderRepository, prescriptions);
  const careTeams = new CareTeams(new CareTeamRepository(db), config.careTeamSandboxFile);
  const consultRepository = new ConsultRepository(db, database.dialect);
  const consultLifecycle = new ConsultLifecycle(consultRepository);
  const diagnosticCatalogues = new DiagnosticCatalogues(new CatalogueRepository(db), config.diagnosticsSandboxCatalogueFile);
  const diagnosticOrderRepository = new DiagnosticOrderRepository(db, database.dialect);
  const diagnosticLifecycle = new DiagnosticLifecycle(diagnosticOrderRepository, secrets);
  const pharmacyLocations = new PharmacyLocations(new ReferenceDataRepository(db, transactor));
  const sameDayRepository = new SameDayDeliveryRepository(db);
  const sameDayLifecycle = new SameDayDeliveryLifecycle(sameDayRepository);

  // Media: the key that signs their addresses is loaded on first use (on PostgreSQL, MEDIA_SIGNING_KEY).
  let mediaSigningKey: Buffer | undefined;
  const mediaAddresses = new MediaAddresses(() => (mediaSigningKey ??= loadMediaSigningKey(config)));
  const mediaStore = config.media.s3 ? new S3MediaStore(config.media.s3) : new LocalMediaStore(config.media.dir);
  const media = new MediaService(new MediaRepository(db), units, mediaStore, mediaAddresses, config.media, log);

  return {
    media,
    units,
    audit: new AuditTrail(new AuditRepository(db), transactor, config.audit, log),
    idempotency: new IdempotencyService(new IdempotencyRepository(db), transactor, secrets),
    apiKeys,
    customers: new CustomerService(customerRepository, { audience: config.oauth.audience, scopes }),
    oauthClients,
    tenants: new Tenants(customerRepository),
    accessTokens,
    tokenExchange: new TokenExchange(oauthClients, accessTokens),
    accounts: new AccountService(new AccountRepository(db), units, secrets),
    careTeams,
    consults: new ConsultService(consultRepository, careTeams, patients, units, consultLifecycle),
    consultLifecycle,
    diagnosticCatalogues,
    diagnosticOrders: new DiagnosticOrderService(diagnosticOrderRepository, diagnosticCatalogues, { patients, insurances }, units, secrets),
    diagnosticLifecycle,
    patients,
    prescriptions,
    prescriptionIntake,
    transfers: new TransferService(transferRepository, units, patients, prescriptions),
    transferLifecycle,
    directTransfers: new DirectTransferService(directTransferRepository, units, patients, prescribers, config.pharmacy),
    directTransferLifecycle,
    prescribers,
    fillRequests,
    heldFills,
    scheduledActions,
    autoRefills,
    scheduler: refillScheduler,
    fillLifecycle,
    fillCancellation,
    orders: new OrderService(orderRepository),
    sameDayDeliveries: new SameDayDeliveryService(sameDayRepository, units, patients, prescriptions, insurances, pharmacyLocations),
    sameDayLifecycle,
    insurances,
    copayRequests,
    webhookEvents: new WebhookEventService(new WebhookEventRepository(db)),
    webhookEndpoints,
    webhookDelivery,
    webhookRedelivery: new WebhookRedeliveryService(deliveryRepository, transactor, webhookEndpoints, () => webhookDelivery.notify()),
    deliveryAttempts: new DeliveryAttempts(attemptRepository),
    dashboardSessions: new DashboardSessions(new DashboardSessionRepository(db), apiKeys),
    sandboxSimulator: new SandboxSimulator(
      jobs,
      units,
      sandboxScripts({ transfers: transferLifecycle, directTransfers: directTransferLifecycle, fills: fillLifecycle, lab: diagnosticLifecycle, consults: consultLifecycle, sameDay: sameDayLifecycle }),
      config.sandboxStepDelayMs,
      log,
    ),
    sandboxPrescriber: new SandboxPrescriber(units, prescriptionIntake, patients),
    reencryption: new Reencryption(db, transactor, secrets, sealedTables),
    pharmacyLocations,
    locationLookups: new LocationLookups(pharmacyLocations),
    coverage: new CoverageService(new CoverageRepository(db), pharmacyLocations),
    openApiDocument,
  };
}
