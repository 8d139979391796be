import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Owner } from '../auth/principal.js';
import type { MediaConfig } from '../config.js';
import { isUniqueViolation } from '../db/database.js';
import { ownerColumns, visibleTo } from '../db/ownership.js';
import { forbidden, HttpError, notFound } from '../errors.js';
import type { UnitsOfWork } from '../events/unit-of-work.js';
import { nowIso } from '../tokens.js';
import { LONG_ADDRESS_TTL_S, READ_ADDRESS_TTL_S, type MediaAddresses, type MediaPurpose } from './media-addresses.js';
import { acceptAll, checkMedia, type MediaScanner } from './media-check.js';
import type { MediaRepository, MediaRow } from './media-repository.js';
import type { MediaStore } from './media-store.js';

const MEDIA_NOT_FOUND = 'Unable to find Media.';
const notFoundHere = () => notFound(MEDIA_NOT_FOUND);

/** A signed address as the content operations receive it. */
export interface SignedRequest {
  id: string;
  purpose: MediaPurpose;
  expires: number;
  signature: string;
}

/**
 * Media files: created (v1 by the client's UUID, v2 by name), uploaded and read through
 * signed addresses the service serves itself, and checked on upload: `AWAITING_UPLOADING`
 * to `REVIEWING` (stored) to `AVAILABLE` (with a `FILE` event) or `QUARANTINE`.
 */
export class MediaService {
  /** Run on every upload after the type and size checks (media-check.ts); replace to plug in a scanner. */
  scanner: MediaScanner = acceptAll;

  constructor(
    private readonly media: MediaRepository,
    private readonly units: UnitsOfWork,
    private readonly store: MediaStore,
    private readonly addresses: MediaAddresses,
    private readonly config: Pick<MediaConfig, 'maxBytes' | 'publicUrl'>,
    private readonly log?: FastifyBaseLogger,
  ) {}

  /** The base of signed addresses: MEDIA_PUBLIC_URL, else the address the request came to. */
  baseUrl(host: string | undefined): string {
    return this.config.publicUrl ?? `http://${host ?? 'localhost'}`;
  }

  /** `POST /v1/media`: the client's UUID is the id; one taken (by anyone) answers 422. */
  createNamed(owner: Owner, requestId: string, body: { fileName: string; title?: string }): Promise<MediaRow> {
    return this.create(owner, requestId, { id: body.fileName.toLowerCase(), name: null, title: body.title ?? null });
  }

  /** `POST /v2/media`: a new id, the name given. */
  createUpload(owner: Owner, requestId: string, body: { name: string }): Promise<MediaRow> {
    return this.create(owner, requestId, { id: randomUUID(), name: body.name, title: null });
  }

  private async create(owner: Owner, requestId: string, fields: Pick<MediaRow, 'id' | 'name' | 'title'>): Promise<MediaRow> {
    const at = nowIso();
    const row: MediaRow = { ...fields, ...ownerColumns(owner), status: 'AWAITING_UPLOADING', content_type: null, size: null, check_result: null, created_at: at, updated_at: at };
    try {
      await this.units.run(requestId, (uow) => this.media.insert(uow.trx, row));
    } catch (error) {
      if (isUniqueViolation(error)) throw new HttpError(422, { statusCode: 422, error: 'Unprocessable Entity', message: 'File with this name already exists' });
      throw error;
    }
    return row;
  }

  /** The owner's file; another customer's, or one of the other environment, does not exist here. */
  async get(owner: Owner, id: string): Promise<MediaRow> {
    return visibleTo(await this.media.find(id.toLowerCase()), owner, { notFound: notFoundHere });
  }

  /** A signed read address (`GET /v1/media/{id}/signed-url/read`): the file must be AVAILABLE. */
  async readAddress(owner: Owner, id: string, base: string): Promise<string> {
    const row = await this.get(owner, id);
    if (row.status !== 'AVAILABLE') throw forbidden('This file cannot be downloaded');
    return this.addresses.address(base, 'read', row.id, READ_ADDRESS_TTL_S);
  }

  /** A signed write address (`GET /v1/media/{id}/signed-url/write`): the file must await its upload. */
  async writeAddress(owner: Owner, id: string, base: string): Promise<string> {
    const row = await this.get(owner, id);
    if (row.status !== 'AWAITING_UPLOADING') throw forbidden('This file was uploaded already');
    return this.addresses.address(base, 'write', row.id, LONG_ADDRESS_TTL_S);
  }

  /** The 24-hour addresses the real platform answers (`GET /v2/media/{id}`'s `url`, `POST /v2/media`'s `upload_url`). */
  longAddress(row: MediaRow, purpose: MediaPurpose, base: string): string {
    return this.addresses.address(base, purpose, row.id, LONG_ADDRESS_TTL_S);
  }

  /** The file a valid signed address names (403 for a bad or expired one, 404 for a file gone). */
  private async signed(request: SignedRequest, purpose: MediaPurpose): Promise<MediaRow> {
    const id = request.id.toLowerCase();
    if (request.purpose !== purpose) throw forbidden('The signed address is not valid.');
    this.addresses.verify(purpose, id, request.expires, request.signature);
    const row = await this.media.find(id);
    if (!row) throw notFoundHere();
    return row;
  }

  /** `GET /v1/media/{id}/content`: the bytes of an AVAILABLE file, and the type the check found. */
  async read(request: SignedRequest): Promise<{ bytes: Buffer; contentType: string }> {
    const row = await this.signed(request, 'read');
    if (row.status !== 'AVAILABLE' || !row.content_type) throw forbidden('This file cannot be downloaded');
    const bytes = await this.store.get(row.id);
    if (!bytes) throw new Error(`media ${row.id} is AVAILABLE but its bytes are missing from the store`);
    return { bytes, contentType: row.content_type };
  }

  /**
   * `PUT /v1/media/{id}/content`: takes the file (AWAITING_UPLOADING to REVIEWING, so a
   * second upload is refused), stores the bytes, checks them, and makes it AVAILABLE with
   * its `FILE` event, or QUARANTINE.
   */
  async upload(request: SignedRequest, bytes: Buffer, requestId: string): Promise<MediaRow['status']> {
    const row = await this.signed(request, 'write');
    const uploaded = () => forbidden('This file was uploaded already');
    if (row.status !== 'AWAITING_UPLOADING') throw uploaded();
    const taken = await this.units.run(requestId, (uow) => this.media.move(uow.trx, row.id, 'AWAITING_UPLOADING', 'REVIEWING', nowIso(), { size: bytes.length }));
    if (!taken) throw uploaded();
    try {
      await this.store.put(row.id, bytes, 'application/octet-stream');
    } catch (error) {
      // Not stored: the file awaits an upload again.
      await this.units.run(requestId, (uow) => this.media.move(uow.trx, row.id, 'REVIEWING', 'AWAITING_UPLOADING', nowIso(), { size: null }));
      throw error;
    }
    let outcome: Awaited<ReturnType<typeof checkMedia>>;
    try {
      outcome = await checkMedia(row.id, bytes, this.config.maxBytes, this.scanner);
    } catch (error) {
      this.log?.error({ err: error, mediaId: row.id }, 'media scanner failed; file quarantined');
      outcome = { quarantine: 'scanner failed' };
    }
    return this.units.run(requestId, async (uow) => {
      const at = nowIso();
      if ('quarantine' in outcome) {
        await this.media.move(uow.trx, row.id, 'REVIEWING', 'QUARANTINE', at, { check_result: outcome.quarantine });
        this.log?.info({ mediaId: row.id, reason: outcome.quarantine }, 'media file quarantined');
        return 'QUARANTINE';
      }
      await this.media.move(uow.trx, row.id, 'REVIEWING', 'AVAILABLE', at, { content_type: outcome.contentType });
      await uow.emit(
        { customerId: row.customer_id, environment: row.environment },
        { callbackType: 'FILE', details: { file_id: row.id, patient_token: null, prescription_token: null, content_type: outcome.contentType, message: 'The file passed its check and is available.' } },
      );
      return 'AVAILABLE';
    });
  }
}
