import type { Owned } from '../db/ownership.js';

/** Media status, as the real platform names them (spec `MediaStatus`). */
export type MediaStatus = 'AWAITING_UPLOADING' | 'REVIEWING' | 'AVAILABLE' | 'QUARANTINE';

/** A media file's record; its bytes are in the media store under `storage_key`. */
export interface MediaTable extends Owned {
  /** A version-4 UUID, lower case: the client's `fileName` (v1) or generated (v2); unique across customers. */
  id: string;
  /** The name given to `POST /v2/media`; null for files created by `POST /v1/media`. */
  name: string | null;
  /** The title given to `POST /v1/media`; null when none. */
  title: string | null;
  status: MediaStatus;
  /** The type the check found in the bytes (image/png, image/jpeg, application/pdf); null until then. */
  content_type: string | null;
  /** Bytes uploaded; null until uploaded. */
  size: number | null;
  /** Why the check quarantined it (our log, never answered); null otherwise. */
  check_result: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../db/database.js' {
  interface Database {
    media: MediaTable;
  }
}
